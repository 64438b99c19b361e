"""The table: campaigns, their structure (adventures, game sessions, scenes, conflicts), commands that
become events, the state as a fold of events, per-viewer views and undo (R-T-1, R-T-2).

Pure like the rules: dice come from an `Rng`, times from the caller, and nothing here touches storage.
"""
