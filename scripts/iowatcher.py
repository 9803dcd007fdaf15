"""iowatcher.py: the tagging protocol, for taggers written in Python 3.

iowatcher starts a tagger with pipes on its stdin and stdout. Every event
of the trace arrives on stdin as a version-7 blk_io_trace record (48
bytes, native byte order) followed by its payload; for each event the
tagger writes zero or more responses and then exactly one END:

    NEW_TAG tag label    define a tag (before any TAG_IO names it)
    TAG_IO tag           this event's I/O belongs to tag
    END                  the answer to this event is complete

An I/O keeps the tag its QUEUE event received, else the one its ISSUE
event received. A minimal tagger:

    import iowatcher
    for ev in iowatcher.events():
        if iowatcher.action_code(ev.action) == iowatcher.QUEUE:
            ...  # write_new_tag() once, then write_tag(tag)
        iowatcher.write_end()

Answers are buffered and flushed whenever reading the next event might
have to wait (and at the end), so a tagger never holds back an answer
iowatcher is waiting for, yet writes in large blocks. The names of the
Python 2 module (write_response_end, write_response_iotag,
write_response_newtag, the __BLK_* codes) are kept for old taggers.
"""

import atexit
import collections
import os
import struct

# The record: magic, sequence, time, sector, bytes, action, pid, device,
# cpu, error, pdu_len.
_RECORD = struct.Struct('=IIQQIIIIIHH')
_unpack_record = _RECORD.unpack_from
RECORD_SIZE = _RECORD.size  # 48

BLK_IO_TRACE_MAGIC = 0x65617400

# Action codes (the low 16 bits of action).
QUEUE = 1
BACKMERGE = 2
FRONTMERGE = 3
GETRQ = 4
SLEEPRQ = 5
REQUEUE = 6
ISSUE = 7
COMPLETE = 8
PLUG = 9
UNPLUG_IO = 10
UNPLUG_TIMER = 11
INSERT = 12
SPLIT = 13
BOUNCE = 14
REMAP = 15
ABORT = 16
DRV_DATA = 17

# Note codes, with the NOTIFY category set.
NOTE_PROCESS = 0
NOTE_TIMESTAMP = 1
NOTE_MESSAGE = 2

# Trace categories (bits 16-31 of action, see BLK_TC_ACT).
BLK_TC_READ = 1 << 0
BLK_TC_WRITE = 1 << 1
BLK_TC_FLUSH = 1 << 2
BLK_TC_SYNC = 1 << 3
BLK_TC_QUEUE = 1 << 4
BLK_TC_REQUEUE = 1 << 5
BLK_TC_ISSUE = 1 << 6
BLK_TC_COMPLETE = 1 << 7
BLK_TC_FS = 1 << 8
BLK_TC_PC = 1 << 9
BLK_TC_NOTIFY = 1 << 10
BLK_TC_AHEAD = 1 << 11
BLK_TC_META = 1 << 12
BLK_TC_DISCARD = 1 << 13
BLK_TC_DRV_DATA = 1 << 14
BLK_TC_FUA = 1 << 15

BLK_TC_SHIFT = 16
BLK_TA_MASK = (1 << BLK_TC_SHIFT) - 1
# Bit 8 of the low half: an 8-byte cgroup id starts the payload.
BLK_TA_CGROUP = 1 << 8


def BLK_TC_ACT(category):
    """The category bit as it sits in action."""
    return category << BLK_TC_SHIFT


def BLK_DATADIR(action):
    """The READ and WRITE category bits of action."""
    return (action >> BLK_TC_SHIFT) & (BLK_TC_READ | BLK_TC_WRITE)


# Full actions as the kernel writes them, as in the Python 2 module.
BLK_TA_QUEUE = QUEUE | BLK_TC_ACT(BLK_TC_QUEUE)
BLK_TA_BACKMERGE = BACKMERGE | BLK_TC_ACT(BLK_TC_QUEUE)
BLK_TA_FRONTMERGE = FRONTMERGE | BLK_TC_ACT(BLK_TC_QUEUE)
BLK_TA_GETRQ = GETRQ | BLK_TC_ACT(BLK_TC_QUEUE)
BLK_TA_SLEEPRQ = SLEEPRQ | BLK_TC_ACT(BLK_TC_QUEUE)
BLK_TA_REQUEUE = REQUEUE | BLK_TC_ACT(BLK_TC_REQUEUE)
BLK_TA_ISSUE = ISSUE | BLK_TC_ACT(BLK_TC_ISSUE)
BLK_TA_COMPLETE = COMPLETE | BLK_TC_ACT(BLK_TC_COMPLETE)
BLK_TA_PLUG = PLUG | BLK_TC_ACT(BLK_TC_QUEUE)
BLK_TA_UNPLUG_IO = UNPLUG_IO | BLK_TC_ACT(BLK_TC_QUEUE)
BLK_TA_UNPLUG_TIMER = UNPLUG_TIMER | BLK_TC_ACT(BLK_TC_QUEUE)
BLK_TA_INSERT = INSERT | BLK_TC_ACT(BLK_TC_QUEUE)
BLK_TA_SPLIT = SPLIT
BLK_TA_BOUNCE = BOUNCE
BLK_TA_REMAP = REMAP | BLK_TC_ACT(BLK_TC_QUEUE)
BLK_TA_ABORT = ABORT | BLK_TC_ACT(BLK_TC_QUEUE)
BLK_TA_DRV_DATA = DRV_DATA | BLK_TC_ACT(BLK_TC_DRV_DATA)

BLK_TN_PROCESS = NOTE_PROCESS | BLK_TC_ACT(BLK_TC_NOTIFY)
BLK_TN_TIMESTAMP = NOTE_TIMESTAMP | BLK_TC_ACT(BLK_TC_NOTIFY)
BLK_TN_MESSAGE = NOTE_MESSAGE | BLK_TC_ACT(BLK_TC_NOTIFY)

# The Python 2 module's names for the codes.
__BLK_TA_QUEUE = QUEUE
__BLK_TA_BACKMERGE = BACKMERGE
__BLK_TA_FRONTMERGE = FRONTMERGE
__BLK_TA_GETRQ = GETRQ
__BLK_TA_SLEEPRQ = SLEEPRQ
__BLK_TA_REQUEUE = REQUEUE
__BLK_TA_ISSUE = ISSUE
__BLK_TA_COMPLETE = COMPLETE
__BLK_TA_PLUG = PLUG
__BLK_TA_UNPLUG_IO = UNPLUG_IO
__BLK_TA_UNPLUG_TIMER = UNPLUG_TIMER
__BLK_TA_INSERT = INSERT
__BLK_TA_SPLIT = SPLIT
__BLK_TA_BOUNCE = BOUNCE
__BLK_TA_REMAP = REMAP
__BLK_TA_ABORT = ABORT
__BLK_TA_DRV_DATA = DRV_DATA
__BLK_TN_PROCESS = NOTE_PROCESS
__BLK_TN_TIMESTAMP = NOTE_TIMESTAMP
__BLK_TN_MESSAGE = NOTE_MESSAGE

# Responses to iowatcher.
TAG_RESP_END = 0
TAG_RESP_NEW_TAG = 1
TAG_RESP_TAG_IO = 2

# The longest label iowatcher takes, its NUL included.
MAX_LABEL = 4096

Event = collections.namedtuple(
    'Event', 'magic sequence time sector bytes action pid device cpu '
    'error pdu_len payload')
Event.__doc__ = """One trace event: the record's fields and its payload
(bytes). Time is in nanoseconds from the first event; sector in 512-byte
units; device a kernel dev_t (major = device >> 20)."""

_END = struct.pack('=I', TAG_RESP_END)
_TAG_IO = struct.Struct('=II')
_NEW_TAG = struct.Struct('=III')
_READ_SIZE = 1 << 16

_in = b''           # bytes read; events before _in_pos already returned
_in_pos = 0
_out = bytearray()  # answers not yet written
_new_event = tuple.__new__


def flush():
    """Write every buffered answer to iowatcher."""
    global _out
    view = memoryview(_out)
    while view:
        view = view[os.write(1, view):]
    view.release()
    _out = bytearray()


def _flush_at_exit():
    try:
        flush()
    except BrokenPipeError:
        pass  # iowatcher is gone; it reports why


atexit.register(_flush_at_exit)


def _fill(need):
    """Have at least need unread bytes; False at the end of the input."""
    global _in, _in_pos
    _in = _in[_in_pos:]
    _in_pos = 0
    while len(_in) < need:
        # We may wait now: iowatcher gets our answers first.
        flush()
        data = os.read(0, _READ_SIZE)
        if not data:
            return False
        _in += data
    return True


def read_event():
    """The next event (an Event), or None at the end of the input
    (the Python 2 module returned an empty tuple)."""
    global _in_pos
    pos = _in_pos
    if len(_in) - pos < RECORD_SIZE:
        if not _fill(RECORD_SIZE):
            if _in:
                raise EOFError('truncated event at the end of the input')
            return None
        pos = 0
    fields = _unpack_record(_in, pos)
    pos += RECORD_SIZE
    end = pos + fields[10]
    if end > len(_in):
        _in_pos = pos - RECORD_SIZE
        if not _fill(RECORD_SIZE + fields[10]):
            raise EOFError('truncated payload at the end of the input')
        pos, end = RECORD_SIZE, RECORD_SIZE + fields[10]
    _in_pos = end
    return _new_event(Event, fields + (_in[pos:end],))


def events():
    """Every event, in order, until the end of the input."""
    while True:
        ev = read_event()
        if ev is None:
            return
        yield ev


def write_end():
    """End the answer to the current event."""
    _out.extend(_END)


def write_tag(tag):
    """Tag the current event's I/O with tag (defined before)."""
    _out.extend(_TAG_IO.pack(TAG_RESP_TAG_IO, tag))


def write_new_tag(tag, label):
    """Define tag with label (str or bytes, at most MAX_LABEL - 1 bytes)."""
    if isinstance(label, str):
        label = label.encode('utf-8', 'replace')
    label = label[:MAX_LABEL - 1] + b'\0'
    _out.extend(_NEW_TAG.pack(TAG_RESP_NEW_TAG, tag, len(label)))
    _out.extend(label)


def action_code(action):
    """The action code (QUEUE, ISSUE, ...) of action, without flags."""
    return action & BLK_TA_MASK & ~BLK_TA_CGROUP


def is_note(action):
    """True for notes (PROCESS, TIMESTAMP, MESSAGE): they carry no I/O."""
    return bool(action & BLK_TC_ACT(BLK_TC_NOTIFY))


def is_write(action):
    """True for writes; everything else is a read."""
    return bool(action & BLK_TC_ACT(BLK_TC_WRITE))


def is_sync(action):
    """True when the SYNC category is set."""
    return bool(action & BLK_TC_ACT(BLK_TC_SYNC))


def process_name(ev):
    """The process name a PROCESS note carries, as str."""
    return ev.payload.split(b'\0', 1)[0].decode('utf-8', 'replace')


_SUFFIXES = {'K': 1 << 10, 'M': 1 << 20, 'G': 1 << 30, 'T': 1 << 40}


def parse_size(text, unit=1):
    """Bytes in text: a number with a K, M, G or T suffix (powers of
    1024), or a bare number of units of unit bytes. ValueError if bad."""
    text = text.strip()
    scale = _SUFFIXES.get(text[-1:].upper())
    if scale:
        text = text[:-1]
    else:
        scale = unit
    value = int(text, 0)
    if value < 0:
        raise ValueError('negative size')
    return value * scale


# The Python 2 module's names.
write_response_end = write_end
write_response_iotag = write_tag
write_response_newtag = write_new_tag
