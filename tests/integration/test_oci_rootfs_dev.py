# SPDX-License-Identifier: Apache-2.0
"""A root filesystem whose /dev is a symbolic link is refused before any
device node is made: the nodes would land wherever the link points, and a
link to an absolute host path must never make the runtime write there."""

import os
import shutil

from harness import assert_nothing_left


def test_a_dev_symlink_is_refused_and_nothing_is_made(rt, bundle, tmp_path):
    outside = tmp_path / "outside-dev"
    outside.mkdir()
    (outside / "ptmx").write_text("marker\n")
    b = bundle("/bin/bento-probe", "exit", "0")
    shutil.rmtree(os.path.join(b.rootfs, "dev"))
    os.symlink(str(outside), os.path.join(b.rootfs, "dev"))
    before = sorted(os.listdir(b.rootfs))
    res = rt.run(b)
    assert res.rc != 0, res
    assert "/dev is a symbolic link (to \"%s\")" % outside in res.err, res
    assert sorted(os.listdir(outside)) == ["ptmx"]
    assert (outside / "ptmx").read_text() == "marker\n"
    # nothing was made inside the root through the link either
    assert sorted(os.listdir(b.rootfs)) == before
    assert not os.path.exists(os.path.join(b.rootfs, str(outside).lstrip("/")))
    assert_nothing_left(rt, res.cid, b)


def test_a_dev_directory_is_populated(rt, bundle):
    b = bundle("/bin/bento-probe", "stat", "/dev/null")
    res = rt.run(b)
    assert res.rc == 0, res
    assert '"type":"chr"' in res.out.replace(" ", ""), res
