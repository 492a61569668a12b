from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message

DESCRIPTOR: _descriptor.FileDescriptor

class EndeavorView(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...
