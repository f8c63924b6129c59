"""The DP advising workspace: set-ups, runs, learning curves and budgets."""
