from c4proto.connect4.v1 import common_pb2 as _common_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class SolveRequest(_message.Message):
    __slots__ = ("position", "weak", "node_budget", "deadline_ms")
    POSITION_FIELD_NUMBER: _ClassVar[int]
    WEAK_FIELD_NUMBER: _ClassVar[int]
    NODE_BUDGET_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_MS_FIELD_NUMBER: _ClassVar[int]
    position: _common_pb2.Position
    weak: bool
    node_budget: int
    deadline_ms: int
    def __init__(self, position: _Optional[_Union[_common_pb2.Position, _Mapping]] = ..., weak: _Optional[bool] = ..., node_budget: _Optional[int] = ..., deadline_ms: _Optional[int] = ...) -> None: ...

class SolveResponse(_message.Message):
    __slots__ = ("score", "nodes", "proven", "source", "elapsed_ms", "weak")
    SCORE_FIELD_NUMBER: _ClassVar[int]
    NODES_FIELD_NUMBER: _ClassVar[int]
    PROVEN_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    ELAPSED_MS_FIELD_NUMBER: _ClassVar[int]
    WEAK_FIELD_NUMBER: _ClassVar[int]
    score: int
    nodes: int
    proven: bool
    source: str
    elapsed_ms: float
    weak: bool
    def __init__(self, score: _Optional[int] = ..., nodes: _Optional[int] = ..., proven: _Optional[bool] = ..., source: _Optional[str] = ..., elapsed_ms: _Optional[float] = ..., weak: _Optional[bool] = ...) -> None: ...

class AnalyzeRequest(_message.Message):
    __slots__ = ("position", "node_budget", "deadline_ms")
    POSITION_FIELD_NUMBER: _ClassVar[int]
    NODE_BUDGET_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_MS_FIELD_NUMBER: _ClassVar[int]
    position: _common_pb2.Position
    node_budget: int
    deadline_ms: int
    def __init__(self, position: _Optional[_Union[_common_pb2.Position, _Mapping]] = ..., node_budget: _Optional[int] = ..., deadline_ms: _Optional[int] = ...) -> None: ...

class ColumnScore(_message.Message):
    __slots__ = ("column", "score", "unproved")
    COLUMN_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    UNPROVED_FIELD_NUMBER: _ClassVar[int]
    column: int
    score: int
    unproved: bool
    def __init__(self, column: _Optional[int] = ..., score: _Optional[int] = ..., unproved: _Optional[bool] = ...) -> None: ...

class AnalyzeResponse(_message.Message):
    __slots__ = ("columns", "nodes", "source", "elapsed_ms")
    COLUMNS_FIELD_NUMBER: _ClassVar[int]
    NODES_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    ELAPSED_MS_FIELD_NUMBER: _ClassVar[int]
    columns: _containers.RepeatedCompositeFieldContainer[ColumnScore]
    nodes: int
    source: str
    elapsed_ms: float
    def __init__(self, columns: _Optional[_Iterable[_Union[ColumnScore, _Mapping]]] = ..., nodes: _Optional[int] = ..., source: _Optional[str] = ..., elapsed_ms: _Optional[float] = ...) -> None: ...

class BestMoveRequest(_message.Message):
    __slots__ = ("position", "deadline_ms")
    POSITION_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_MS_FIELD_NUMBER: _ClassVar[int]
    position: _common_pb2.Position
    deadline_ms: int
    def __init__(self, position: _Optional[_Union[_common_pb2.Position, _Mapping]] = ..., deadline_ms: _Optional[int] = ...) -> None: ...

class BestMoveResponse(_message.Message):
    __slots__ = ("proven", "column", "score", "nodes", "source", "elapsed_ms")
    PROVEN_FIELD_NUMBER: _ClassVar[int]
    COLUMN_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    NODES_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    ELAPSED_MS_FIELD_NUMBER: _ClassVar[int]
    proven: bool
    column: int
    score: int
    nodes: int
    source: str
    elapsed_ms: float
    def __init__(self, proven: _Optional[bool] = ..., column: _Optional[int] = ..., score: _Optional[int] = ..., nodes: _Optional[int] = ..., source: _Optional[str] = ..., elapsed_ms: _Optional[float] = ...) -> None: ...
