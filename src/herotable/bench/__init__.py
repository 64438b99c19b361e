"""`make bench`: the measurements of docs/performance.md. Part of the checkout, not of the installed package (the
wheel leaves it out): it needs the `bench` extra and a checkout's test set-up."""
