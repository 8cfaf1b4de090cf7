"""A local, protocol-level simulator of Turnkey's public API (and, later, its auth proxy)."""

from simulator.app import create_app
from simulator.config import Config
from simulator.core import Simulator
from simulator.errors import ApiError
from simulator.scenario import ScenarioError, load_scenario
from simulator.server import SimulatorServer

__all__ = ["ApiError", "Config", "ScenarioError", "Simulator", "SimulatorServer", "create_app", "load_scenario"]
