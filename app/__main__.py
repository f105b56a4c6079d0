"""`python -m ccarchive` runs the same CLI as the `ccarchive` console script."""

from ccarchive.cli.main import main

main()
