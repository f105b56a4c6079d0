"""The search language: what people, agents and scripts type, compiled to a Tantivy query.

`tokens` splits the text, `parser` turns it into an AST, `dates` reads `after:`/`before:`,
`regex` builds the substring filters, and `compiler` turns the AST into a `tantivy.Query`.
"""
