"""One model per notebook-only params section, a module each: editing one reruns only the notebook that reads
it (its stage also reads the shared sections: profile, store, judgements)."""
