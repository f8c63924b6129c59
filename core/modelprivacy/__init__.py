"""The model privacy lab: membership inference on trained models and what each defense costs
(DP-SGD, the Gaussian post-training mechanism, the one-parameter defense).
"""

import lazy_loader as _lazy

# The public names are listed once, in each module's __all__; __init__.pyi is generated
# from them (tools/facades.py) and the modules load on first use.
__getattr__, __dir__, __all__ = _lazy.attach_stub(__name__, __file__)
