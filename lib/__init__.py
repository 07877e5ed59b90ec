"""Evidence retrieval for automated fact verification: the study's code.

Modules are named after domain concepts: `data` (loaders), `urls` (URL normalisation and
dates), `store` (the pooled evidence store and its qrels), `leakage` (what the store holds and
how far to trust it), `resources` (offline NLTK data), `notebooks` (papermill runs and reports).
"""
