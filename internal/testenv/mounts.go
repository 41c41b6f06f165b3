package testenv

import (
	"testing"

	"github.com/moby/sys/mountinfo"
)

// FUSEMountPoints lists where FUSE connection conn (the device's minor
// number) is mounted in this process's mount table.
func FUSEMountPoints(t testing.TB, conn int) []string {
	t.Helper()
	ms, err := mountinfo.GetMounts(func(m *mountinfo.Info) (skip, stop bool) {
		return m.Major != 0 || m.Minor != conn, false
	})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, 0, len(ms))
	for _, m := range ms {
		out = append(out, m.Mountpoint)
	}
	return out
}
