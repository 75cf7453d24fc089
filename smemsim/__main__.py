"""`python -m smemsim` runs the command line."""
from .cli import main

main()
