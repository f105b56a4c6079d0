"""`python -m app` runs the same CLI as the `ccarchive` console script."""

from app.cli import main

main()
