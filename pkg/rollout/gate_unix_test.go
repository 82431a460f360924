//go:build linux

package rollout

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGateChildrenEndWithTheWave: a gate's shell and what it started end
// at the wave's timeout; before, the shell alone was killed and its
// children outlived the wave, and fedctl.
func TestGateChildrenEndWithTheWave(t *testing.T) {
	f := newRunFixture(t)
	f.afterSync = func(c string) { f.setDeployment(c, true) }
	pidFile := filepath.Join(t.TempDir(), "pid")
	in := f.input(&Plan{Timeout: time.Second, Waves: []Wave{{Name: "all", Clusters: []string{"c1"}}}})
	in.Gate = "sleep 60 & echo $! > " + pidFile + "; wait"
	rep, err := Run(guard(t), in)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "did not end within")
	assert.Equal(t, Failed, rep.Waves[0].State)
	data, err := os.ReadFile(pidFile)
	require.NoError(t, err)
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	require.NoError(t, err)
	assert.Eventually(t, func() bool { return !running(pid) }, 5*time.Second, 50*time.Millisecond, "the gate's sleep (pid %d) was killed with it", pid)
}

// running says whether process pid exists and is not a zombie (one killed
// whose parent has not reaped it yet is gone for this purpose).
func running(pid int) bool {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	// pid (comm) STATE ...: comm may hold spaces, so look after the last ')'
	rest := string(stat[strings.LastIndexByte(string(stat), ')')+1:])
	fields := strings.Fields(rest)
	return len(fields) > 0 && fields[0] != "Z"
}
