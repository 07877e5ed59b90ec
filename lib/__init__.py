"""Evidence retrieval for automated fact verification: the study's code, one subpackage per layer.

`data` (loaders), `store` (the evidence store and its judgements), `retrieval` (retrievers, fusion, runs),
`planning` (query planners, the LLM client, QGEN, the pursuit), `evaluation` (metrics and statistics),
`averitec` (the task's score), `verifier` (the NLI verifier), `analysis` (the notebooks' tables and sentences:
generative planners, verdicts, errors, utility, budget, synthesis), `site`
(running and rendering the notebooks, the course); `paths`, `params` and `schema` say where things are and
which settings hold; `cli` how a command ends on bad input; the remaining modules are operations (compute,
models, training, resources, timing, closure, profiles).
"""
