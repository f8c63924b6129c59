"""The Private agents workspace: DP-DRL against map recovery, and PE-Co-MARL."""
