package testenv

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/tools/clientcmd"
)

func TestEnvKubeconfig(t *testing.T) {
	t.Parallel()
	ca := []byte("-----BEGIN CERTIFICATE-----\nfake\n-----END CERTIFICATE-----\n")
	clusters := []*Cluster{
		{Name: "cluster1", Context: "cluster1", Server: "https://127.0.0.1:4001", Token: "t1"},
		{Name: "cluster2", Context: "cluster2", Server: "https://127.0.0.1:4002", Token: "t2"},
	}
	path := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, clientcmd.WriteToFile(*envKubeconfig(ca, clusters, "bad"), path))

	cfg, err := clientcmd.LoadFromFile(path)
	require.NoError(t, err)
	assert.Equal(t, "cluster1", cfg.CurrentContext)
	assert.ElementsMatch(t, []string{"cluster1", "cluster2", "cluster1-badcreds"}, keys(cfg.Contexts))

	tests := []struct {
		context, server, token string
	}{
		{"cluster1", "https://127.0.0.1:4001", "t1"},
		{"cluster2", "https://127.0.0.1:4002", "t2"},
		{"cluster1-badcreds", "https://127.0.0.1:4001", "bad"},
	}
	for _, tt := range tests {
		t.Run("context "+tt.context+" resolves to its server and token", func(t *testing.T) {
			rc, err := clientcmd.NewNonInteractiveClientConfig(*cfg, tt.context, &clientcmd.ConfigOverrides{}, nil).ClientConfig()
			require.NoError(t, err)
			assert.Equal(t, tt.server, rc.Host)
			assert.Equal(t, tt.token, rc.BearerToken)
			assert.Equal(t, ca, rc.CAData, "the CA is embedded, so the file can be copied")
			assert.False(t, rc.Insecure)
		})
	}
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
