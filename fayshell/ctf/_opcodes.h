/*
 * The decoder's instruction set, as fayshell/ctf/program.py declares it (the contract between
 * the compiler there and the executor in _decode.c). tests/ctf/test_opcodes.py checks that
 * every name and number here equals program.py's, and that nothing is missing on either side.
 */
#ifndef FAYSHELL_CTF_OPCODES_H
#define FAYSHELL_CTF_OPCODES_H

/* int64 words per instruction: op, a, b, c, d, e */
#define WIDTH 6

/* opcodes */
enum {
    ALIGN = 1,
    INT = 2,
    CLOCK = 3,
    FLOAT = 4,
    STRING = 5,
    TEXTARR = 6,
    TEXTSEQ = 7,
    LIST = 8,
    VARIANT = 9,
    CASE = 10,
    JUMP = 11,
    END = 12
};

/* register holding the event id decoded from the event header */
#define REG_ID 0

/* column kinds */
enum {
    K_INT = 0,
    K_FLOAT = 1,
    K_STR = 2,
    K_LIST = 3
};

#endif
