from .tantivy import *
