# SPDX-License-Identifier: Apache-2.0
"""What a service manager hands `bento run` is meant for bento, not for the
box: with NOTIFY_SOCKET (systemd Type=notify) and LISTEN_FDS (socket
activation) in bento's environment, the box gets no notify socket, no
mount of one and no extra descriptor; bento-runtime honours both when an
engine calls it directly (test_oci_notify.py, test_oci_process_defects.py)."""

import os
import socket

from test_bento_run import world  # noqa: F401  (the fixture)

SCRIPT = ('echo "NOTIFY_SOCKET=${NOTIFY_SOCKET-unset} LISTEN_FDS=${LISTEN_FDS-unset}"\n'
          'cat /proc/self/mountinfo\n'
          'if [ -e /proc/$$/fd/3 ]; then echo "fd3:present"; else echo "fd3:none"; fi\n')


def test_notify_socket_and_listen_fds_stay_outside(world):  # noqa: F811
    sock_path = os.path.join(world.tmp, "notify.sock")
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.bind(sock_path)
    s.settimeout(0.2)
    try:
        m = world.manifest("entrypoint: ./s.sh\ninterpreter: sh\nenv: [NOTIFY_SOCKET, LISTEN_FDS]\n",
                           script=SCRIPT)
        world.approve(m)
        res = world.run(m, env={"NOTIFY_SOCKET": sock_path, "LISTEN_FDS": "1"})
        assert res.rc == 0, res
        first, rest = res.out.split("\n", 1)
        # the manifest allows both names: the host's values pass as ordinary
        # variables, but nothing is wired to them
        assert first == "NOTIFY_SOCKET=%s LISTEN_FDS=1" % sock_path, res
        assert "notify" not in rest, res
        # socket activation would have passed descriptor 3 (the first after stdio)
        assert rest.splitlines()[-1] == "fd3:none", res
        try:
            data = s.recv(4096)
        except socket.timeout:
            data = None
        assert data is None, "the box reached the caller's notify socket: %r" % data
    finally:
        s.close()
