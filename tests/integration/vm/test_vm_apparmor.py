# SPDX-License-Identifier: Apache-2.0
"""process.apparmorProfile on a host with AppArmor: bento-runtime puts the
container process under the named profile, whose denial then holds; the
same container without the profile may do it; a profile that is not
loaded fails the container rather than running it unconfined."""

import subprocess

import pytest

PROFILE = "bento-vm-deny-shm-write"
TARGET = "/dev/shm/bento-denied"
# Everything is allowed but writing one file, so that a failure can only be
# that rule; attach_disconnected because the container's paths are outside
# the host's mount tree.
PROFILE_TEXT = """profile %s flags=(attach_disconnected,mediate_deleted) {
  file,
  capability,
  network,
  signal,
  unix,
  ptrace,
  deny %s w,
}
""" % (PROFILE, TARGET)


@pytest.fixture
def deny_profile(tmp_path):
    src = tmp_path / "profile"
    src.write_text(PROFILE_TEXT)
    subprocess.run(["apparmor_parser", "-r", "-W", str(src)], check=True, capture_output=True, timeout=120)
    yield PROFILE
    subprocess.run(["apparmor_parser", "-R", str(src)], check=True, capture_output=True, timeout=120)


def write_bundle(bundle):
    return bundle("/bin/sh", "-c", "cat /proc/self/attr/current; echo x > %s && echo WROTE" % TARGET)


def test_the_profile_confines_and_denies_the_write(rt, bundle, deny_profile):
    b = write_bundle(bundle)
    b.process["apparmorProfile"] = deny_profile
    res = rt.run(b)
    assert "%s (enforce)" % deny_profile in res.out, res
    assert "WROTE" not in res.out, res
    assert res.rc != 0 and "Permission denied" in res.err + res.out, res


def test_without_the_profile_the_write_works(rt, bundle, deny_profile):
    res = rt.run(write_bundle(bundle))
    assert res.rc == 0 and "WROTE" in res.out, res
    assert deny_profile not in res.out, res


def test_a_profile_that_is_not_loaded_fails_the_container(rt, bundle):
    b = write_bundle(bundle)
    b.process["apparmorProfile"] = "bento-vm-no-such-profile"
    res = rt.run(b)
    assert res.rc != 0 and "WROTE" not in res.out, res
    assert "bento-vm-no-such-profile" in res.err, res
