package testutil

import (
	"net"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// SilentServer listens on 127.0.0.1, takes every connection and never
// answers, not even the TLS handshake: a member that never answers. It
// returns its host:port; the test's end closes it and its connections.
func SilentServer(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var mu sync.Mutex
	var held []net.Conn
	t.Cleanup(func() {
		_ = l.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range held {
			_ = c.Close()
		}
	})
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			held = append(held, c)
			mu.Unlock()
		}
	}()
	return l.Addr().String()
}
