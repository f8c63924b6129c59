"""The MDP capability: models, files, layout, synthesis, robust bounds, sweeps, examples."""
