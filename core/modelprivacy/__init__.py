"""The model privacy lab: membership inference on trained models and what each defense costs
(DP-SGD, the Gaussian post-training mechanism, the one-parameter defense)."""
