"""DPoNI Conviction on the True20 chassis (R-CV-1 … R-CV-13)."""
