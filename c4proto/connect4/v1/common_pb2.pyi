from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable
from typing import ClassVar as _ClassVar, Optional as _Optional

DESCRIPTOR: _descriptor.FileDescriptor

class Position(_message.Message):
    __slots__ = ("width", "height", "k", "moves")
    WIDTH_FIELD_NUMBER: _ClassVar[int]
    HEIGHT_FIELD_NUMBER: _ClassVar[int]
    K_FIELD_NUMBER: _ClassVar[int]
    MOVES_FIELD_NUMBER: _ClassVar[int]
    width: int
    height: int
    k: int
    moves: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, width: _Optional[int] = ..., height: _Optional[int] = ..., k: _Optional[int] = ..., moves: _Optional[_Iterable[int]] = ...) -> None: ...

class Cell(_message.Message):
    __slots__ = ("column", "row")
    COLUMN_FIELD_NUMBER: _ClassVar[int]
    ROW_FIELD_NUMBER: _ClassVar[int]
    column: int
    row: int
    def __init__(self, column: _Optional[int] = ..., row: _Optional[int] = ...) -> None: ...
