"""Query planning: rule-based planners, the LLM client and prompted planners, the multi-hop pursuit, QGEN and its training, MMR, the generative stages."""
