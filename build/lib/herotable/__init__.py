"""herotable: Larger Than Life and DPoNI Conviction, run exactly by their rules.

Convention: rules state is made of frozen values. Rules functions never mutate their inputs; they return
new values. Dice come from an explicit `herotable.dice.Rng`, never from a global generator.
"""

__version__ = "0.1.0"
