"""Protocols: each turns (model factory, dataset, seed) or a simulation setting into a TrialResult."""
