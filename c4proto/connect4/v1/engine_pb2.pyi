from c4proto.connect4.v1 import common_pb2 as _common_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Outcome(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    OUTCOME_UNKNOWN: _ClassVar[Outcome]
    OUTCOME_WIN: _ClassVar[Outcome]
    OUTCOME_DRAW: _ClassVar[Outcome]
    OUTCOME_LOSS: _ClassVar[Outcome]
OUTCOME_UNKNOWN: Outcome
OUTCOME_WIN: Outcome
OUTCOME_DRAW: Outcome
OUTCOME_LOSS: Outcome

class ListPlayersRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class PlayerInfo(_message.Message):
    __slots__ = ("spec", "family", "description", "takes_budget", "param_min", "param_max", "default_budget_ms", "param_is_budget_ms")
    SPEC_FIELD_NUMBER: _ClassVar[int]
    FAMILY_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    TAKES_BUDGET_FIELD_NUMBER: _ClassVar[int]
    PARAM_MIN_FIELD_NUMBER: _ClassVar[int]
    PARAM_MAX_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_BUDGET_MS_FIELD_NUMBER: _ClassVar[int]
    PARAM_IS_BUDGET_MS_FIELD_NUMBER: _ClassVar[int]
    spec: str
    family: str
    description: str
    takes_budget: bool
    param_min: int
    param_max: int
    default_budget_ms: int
    param_is_budget_ms: bool
    def __init__(self, spec: _Optional[str] = ..., family: _Optional[str] = ..., description: _Optional[str] = ..., takes_budget: _Optional[bool] = ..., param_min: _Optional[int] = ..., param_max: _Optional[int] = ..., default_budget_ms: _Optional[int] = ..., param_is_budget_ms: _Optional[bool] = ...) -> None: ...

class ListPlayersResponse(_message.Message):
    __slots__ = ("players",)
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    players: _containers.RepeatedCompositeFieldContainer[PlayerInfo]
    def __init__(self, players: _Optional[_Iterable[_Union[PlayerInfo, _Mapping]]] = ...) -> None: ...

class MoveRequest(_message.Message):
    __slots__ = ("position", "player", "budget_ms", "seed", "no_book")
    POSITION_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    BUDGET_MS_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    NO_BOOK_FIELD_NUMBER: _ClassVar[int]
    position: _common_pb2.Position
    player: str
    budget_ms: int
    seed: int
    no_book: bool
    def __init__(self, position: _Optional[_Union[_common_pb2.Position, _Mapping]] = ..., player: _Optional[str] = ..., budget_ms: _Optional[int] = ..., seed: _Optional[int] = ..., no_book: _Optional[bool] = ...) -> None: ...

class SearchResult(_message.Message):
    __slots__ = ("column", "score", "depth", "nodes", "elapsed_ms", "book", "proven", "pv", "outcome", "plies_to_end", "resign", "message", "player")
    COLUMN_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    DEPTH_FIELD_NUMBER: _ClassVar[int]
    NODES_FIELD_NUMBER: _ClassVar[int]
    ELAPSED_MS_FIELD_NUMBER: _ClassVar[int]
    BOOK_FIELD_NUMBER: _ClassVar[int]
    PROVEN_FIELD_NUMBER: _ClassVar[int]
    PV_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    PLIES_TO_END_FIELD_NUMBER: _ClassVar[int]
    RESIGN_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    column: int
    score: int
    depth: int
    nodes: int
    elapsed_ms: float
    book: bool
    proven: bool
    pv: _containers.RepeatedScalarFieldContainer[int]
    outcome: Outcome
    plies_to_end: int
    resign: bool
    message: str
    player: str
    def __init__(self, column: _Optional[int] = ..., score: _Optional[int] = ..., depth: _Optional[int] = ..., nodes: _Optional[int] = ..., elapsed_ms: _Optional[float] = ..., book: _Optional[bool] = ..., proven: _Optional[bool] = ..., pv: _Optional[_Iterable[int]] = ..., outcome: _Optional[_Union[Outcome, str]] = ..., plies_to_end: _Optional[int] = ..., resign: _Optional[bool] = ..., message: _Optional[str] = ..., player: _Optional[str] = ...) -> None: ...

class DepthReport(_message.Message):
    __slots__ = ("depth", "nodes", "score", "best_column", "elapsed_ms", "proven")
    DEPTH_FIELD_NUMBER: _ClassVar[int]
    NODES_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    BEST_COLUMN_FIELD_NUMBER: _ClassVar[int]
    ELAPSED_MS_FIELD_NUMBER: _ClassVar[int]
    PROVEN_FIELD_NUMBER: _ClassVar[int]
    depth: int
    nodes: int
    score: int
    best_column: int
    elapsed_ms: float
    proven: bool
    def __init__(self, depth: _Optional[int] = ..., nodes: _Optional[int] = ..., score: _Optional[int] = ..., best_column: _Optional[int] = ..., elapsed_ms: _Optional[float] = ..., proven: _Optional[bool] = ...) -> None: ...

class ThinkUpdate(_message.Message):
    __slots__ = ("progress", "result")
    PROGRESS_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    progress: DepthReport
    result: SearchResult
    def __init__(self, progress: _Optional[_Union[DepthReport, _Mapping]] = ..., result: _Optional[_Union[SearchResult, _Mapping]] = ...) -> None: ...

class EvaluateRequest(_message.Message):
    __slots__ = ("position",)
    POSITION_FIELD_NUMBER: _ClassVar[int]
    position: _common_pb2.Position
    def __init__(self, position: _Optional[_Union[_common_pb2.Position, _Mapping]] = ...) -> None: ...

class EvaluateResponse(_message.Message):
    __slots__ = ("score", "line_score", "threat_score", "first_threats", "second_threats")
    SCORE_FIELD_NUMBER: _ClassVar[int]
    LINE_SCORE_FIELD_NUMBER: _ClassVar[int]
    THREAT_SCORE_FIELD_NUMBER: _ClassVar[int]
    FIRST_THREATS_FIELD_NUMBER: _ClassVar[int]
    SECOND_THREATS_FIELD_NUMBER: _ClassVar[int]
    score: int
    line_score: int
    threat_score: int
    first_threats: _containers.RepeatedCompositeFieldContainer[_common_pb2.Cell]
    second_threats: _containers.RepeatedCompositeFieldContainer[_common_pb2.Cell]
    def __init__(self, score: _Optional[int] = ..., line_score: _Optional[int] = ..., threat_score: _Optional[int] = ..., first_threats: _Optional[_Iterable[_Union[_common_pb2.Cell, _Mapping]]] = ..., second_threats: _Optional[_Iterable[_Union[_common_pb2.Cell, _Mapping]]] = ...) -> None: ...
