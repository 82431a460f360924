package rollout

import "os/exec"

// ownProcessGroup is a no-op on Windows, which has no process groups to
// signal: cancellation kills the shell alone (exec.CommandContext's
// default).
func ownProcessGroup(*exec.Cmd) {}
