"""The privacy ledger workspace: every release of the project and what it spent."""
