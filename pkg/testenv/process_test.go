package testenv

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func shProcess(t *testing.T, script string) *process {
	t.Helper()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("needs sh")
	}
	return &process{name: "test sh", path: sh, args: []string{"-c", script}, logPath: filepath.Join(t.TempDir(), "sh.log")}
}

func TestProcessStopsWithSIGTERM(t *testing.T) {
	t.Parallel()
	p := shProcess(t, "echo started; exec sleep 60")
	require.NoError(t, p.start())
	assert.True(t, p.running())
	began := time.Now()
	require.NoError(t, p.stop(10*time.Second))
	assert.Less(t, time.Since(began), 5*time.Second, "sleep dies of SIGTERM without waiting for the grace period")
	assert.False(t, p.running())
	assert.Equal(t, "signal: terminated", p.exitStatus())
	assert.NoError(t, p.stop(time.Second), "stopping a stopped process does nothing")
}

func TestProcessIgnoringSIGTERMIsKilledAfterGrace(t *testing.T) {
	t.Parallel()
	p := shProcess(t, `trap "" TERM; echo ready; while :; do sleep 1; done`)
	require.NoError(t, p.start())
	// "\nready": the log's header line holds the script itself.
	require.Eventually(t, func() bool { return strings.Contains(p.logTail(), "\nready") },
		5*time.Second, 10*time.Millisecond, "the trap is set")
	require.NoError(t, p.stop(200*time.Millisecond))
	assert.Equal(t, "signal: killed", p.exitStatus())
}

func TestProcessLogKeepsEachRunApart(t *testing.T) {
	t.Parallel()
	p := shProcess(t, "echo run; echo 'listen tcp 127.0.0.1:1: bind: address already in use' >&2; exit 1")
	require.NoError(t, p.start())
	require.Eventually(t, func() bool { return !p.running() }, 5*time.Second, 10*time.Millisecond)
	assert.Equal(t, "exit status 1", p.exitStatus())
	assert.True(t, p.lostPort())

	p.args = []string{"-c", "echo second run; exit 1"}
	require.NoError(t, p.start())
	require.Eventually(t, func() bool { return !p.running() }, 5*time.Second, 10*time.Millisecond)
	assert.False(t, p.lostPort(), "only the last run counts")
	assert.NotContains(t, p.logTail(), "address already in use")
	assert.Contains(t, p.logTail(), "second run")
}

func TestStartRetryingOnlyRetriesALostPort(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		firstRun     string // script of the first attempt; later ones run forever
		wantAttempts int
		wantErr      string
		wantLog      string
	}{
		{
			name:         "a port taken between probe and bind is retried with new ports",
			firstRun:     "echo 'listen tcp 127.0.0.1:1234: bind: address already in use' >&2; exit 1",
			wantAttempts: 2,
			wantLog:      "test sh: port taken by another process, retrying (1/5)",
		},
		{
			name:         "any other failure is returned at once with the log tail",
			firstRun:     "echo 'unknown flag: --bogus' >&2; exit 1",
			wantAttempts: 1,
			wantErr:      "unknown flag: --bogus",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := shProcess(t, "")
			var log bytes.Buffer
			e := &Env{log: &log}
			attempts := 0
			pick := func() error {
				attempts++
				p.args = []string{"-c", "exec sleep 60"}
				if attempts == 1 {
					p.args = []string{"-c", tt.firstRun}
				}
				return nil
			}
			ready := func(context.Context) error {
				time.Sleep(300 * time.Millisecond)
				if !p.running() {
					return errors.New(p.logTail())
				}
				return nil
			}
			err := e.startRetrying(t.Context(), p, pick, ready)
			t.Cleanup(func() { _ = p.kill() })
			assert.Equal(t, tt.wantAttempts, attempts)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.True(t, p.running())
			assert.Contains(t, log.String(), tt.wantLog)
		})
	}
}
