"""The MDP workspace: canvas, matrix view, Inspector, run parameters and Figure 2.1."""
