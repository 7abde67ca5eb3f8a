"""Log N routine storage records through lttngust, then (with 'fail') one error."""

import logging
import sys
import time

import lttngust  # noqa: F401  (registers with the session daemon)

log = logging.getLogger("storage.disk")
log.setLevel(logging.DEBUG)
time.sleep(0.5)
for i in range(int(sys.argv[1])):
    log.info("write ok %d", i)
if sys.argv[2] == "fail":
    log.error("write failed: EIO on /dev/sdb")
time.sleep(0.5)
