"""The veracity verifier: the NLI classifier, its training stages per dataset, the sweep, and downstream veracity."""
