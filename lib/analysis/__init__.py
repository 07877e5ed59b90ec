"""Analyses over the study's outputs: error codes, relevance versus utility, the compute budget, the synthesis."""
