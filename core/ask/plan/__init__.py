"""The plan stage: the planner's state and strategy, the offline rules and the optional LLM planner."""

from core.ask.plan.strategy import stage

__all__ = ["stage"]
