import argparse

NAME: str
HELP: str
EPILOG: str
DEFAULT_ITERS: dict[str, int]
DEFAULT_SIZE: dict[str, int]
MAX_SIZE: int
MAX_ITERS: int
MTUS: tuple[int, ...]

def add_arguments(parser: argparse.ArgumentParser) -> None: ...
def plan(args: argparse.Namespace) -> list[tuple[str, str, list[int], int]]: ...
def run(args: argparse.Namespace) -> int: ...
