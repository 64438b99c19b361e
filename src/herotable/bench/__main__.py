"""`python -m herotable.bench`: every bench, into bench/results.json."""

from herotable.bench.all import main

main()
