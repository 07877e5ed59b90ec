"""Evaluation instruments: retrieval metrics with trec_eval semantics, significance tests, rater agreement, calibration."""
