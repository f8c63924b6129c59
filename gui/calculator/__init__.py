"""The Privacy Calculator workspace: (epsilon, delta) of the Dirichlet mechanism, what-if."""
