# SPDX-License-Identifier: Apache-2.0
"""`bento run` of a manifest with many thousand grants, as `bento profile`
writes for a program that reads a large data set (one read grant per file
it touched): the bundle has a bind mount per grant, more than the caller's
RLIMIT_NOFILE, and a mount-identity annotation larger than 256 KiB that
bento-runtime hands the exec gate in the container's state.  Both used to
fail (bento-runtime: "unexpected setup message"; the gate: "the container
process state is larger than 262144 bytes").  The run must work, every
granted file must be readable, and the denials still hold: an ungranted
sibling stays absent and a subprocess exec stays refused under exec: none.
"""

import os
import resource
import shutil
import tempfile

import pytest

import harness
from harness import run_cmd

BENTO = os.path.join(harness.BUILD, "bin", "bento")
N_FILES = 12000

pytestmark = [pytest.mark.timeout(240)]

SCRIPT = r"""
import os, subprocess, sys
data = sys.argv[1]
n = int(sys.argv[2])
ok = sum(1 for i in range(n) if open(os.path.join(data, "f%05d" % i)).read() == str(i))
print("granted readable: %d" % ok)
try:
    open(os.path.join(data, "secret")).read()
    print("secret: read")
except OSError as e:
    print("secret: errno %d" % e.errno)
try:
    subprocess.run(["/bin/true"])
    print("exec: ran")
except PermissionError:
    print("exec: refused")
"""


@pytest.fixture
def world(test_dir):
    home = os.path.join(test_dir, "home")
    state = os.path.join(test_dir, "state")
    work = os.path.join(test_dir, "work")
    data = os.path.join(work, "data")
    os.makedirs(home)
    os.makedirs(state)
    os.makedirs(data)
    for i in range(N_FILES):
        with open(os.path.join(data, "f%05d" % i), "w") as f:
            f.write(str(i))
    with open(os.path.join(data, "secret"), "w") as f:
        f.write("no")
    with open(os.path.join(work, "s.py"), "w") as f:
        f.write(SCRIPT)
    with open(os.path.join(work, "m.yaml"), "w") as f:
        f.write("entrypoint: ./s.py\ninterpreter: /usr/bin/python3\nexec: none\n")
        f.write("args: [%s, '%d']\n" % (data, N_FILES))
        f.write("read:\n")
        for i in range(N_FILES):
            f.write("  - ./data/f%05d\n" % i)
    tmp = tempfile.mkdtemp(prefix="many.", dir="/tmp")  # short: unix socket paths
    env = {"PATH": "/usr/bin:/bin", "HOME": home, "XDG_STATE_HOME": state, "TMPDIR": tmp,
           "LANG": "C"}
    yield work, env
    shutil.rmtree(tmp, ignore_errors=True)


def test_a_manifest_with_more_grants_than_descriptors(world):
    work, env = world
    m = os.path.join(work, "m.yaml")
    res = run_cmd([BENTO, "approve", "--yes", m], env=env, cwd=work, timeout=120)
    assert res.rc == 0, res
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(4096, hard), hard))
    try:
        res = run_cmd([BENTO, "run", m], env=env, cwd=work, timeout=200)
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    assert res.rc == 0, res
    assert "granted readable: %d" % N_FILES in res.out, res
    assert "secret: errno 2" in res.out, res  # the ungranted sibling is absent
    assert "exec: refused" in res.out, res  # exec: none still holds
