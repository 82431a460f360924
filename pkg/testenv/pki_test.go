package testenv

import (
	"crypto/ecdsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestServingCertificateVerifiesForLoopbackAgainstTheCA(t *testing.T) {
	t.Parallel()
	now := time.Now()
	auth, err := newAuthority(now)
	require.NoError(t, err)
	assert.True(t, auth.cert.IsCA)

	certPEM, keyPEM, err := auth.issueServing(now, []string{"localhost"}, []net.IP{net.IPv4(127, 0, 0, 1)})
	require.NoError(t, err)
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	require.NoError(t, err, "certificate and key match")
	leaf, err := x509.ParseCertificate(pair.Certificate[0])
	require.NoError(t, err)

	roots := x509.NewCertPool()
	require.True(t, roots.AppendCertsFromPEM(auth.certPEM))
	for _, host := range []string{"127.0.0.1", "localhost"} {
		_, err := leaf.Verify(x509.VerifyOptions{DNSName: host, Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}})
		assert.NoError(t, err, host)
	}
	_, err = leaf.Verify(x509.VerifyOptions{DNSName: "example.com", Roots: roots})
	assert.Error(t, err, "no other host")

	other, err := newAuthority(now)
	require.NoError(t, err)
	otherRoots := x509.NewCertPool()
	otherRoots.AddCert(other.cert)
	_, err = leaf.Verify(x509.VerifyOptions{DNSName: "127.0.0.1", Roots: otherRoots})
	assert.Error(t, err, "another environment's CA does not trust it")

	assert.True(t, leaf.NotBefore.Before(now), "valid already for a clock slightly behind")
	assert.True(t, leaf.NotAfter.After(now.Add(24*time.Hour)))
}

func TestServiceAccountKeyPair(t *testing.T) {
	t.Parallel()
	privPEM, pubPEM, err := newServiceAccountKey()
	require.NoError(t, err)

	block, _ := pem.Decode(privPEM)
	require.NotNil(t, block)
	assert.Equal(t, "EC PRIVATE KEY", block.Type)
	priv, err := x509.ParseECPrivateKey(block.Bytes)
	require.NoError(t, err)

	block, _ = pem.Decode(pubPEM)
	require.NotNil(t, block)
	assert.Equal(t, "PUBLIC KEY", block.Type)
	pub, err := x509.ParsePKIXPublicKey(block.Bytes)
	require.NoError(t, err)
	assert.True(t, priv.PublicKey.Equal(pub.(*ecdsa.PublicKey)), "the public key belongs to the private key")
}

func TestRandomToken(t *testing.T) {
	t.Parallel()
	a, err := randomToken()
	require.NoError(t, err)
	b, err := randomToken()
	require.NoError(t, err)
	assert.Len(t, a, 32)
	assert.Regexp(t, `^[0-9a-f]+$`, a, "safe in tokens.csv")
	assert.NotEqual(t, a, b)
}

// TestClientCertificate: what kube-apiserver's --client-ca-file
// authentication reads, user from CN and groups from O, signed by the
// environment's CA for client use; each call a new key, as a rotation.
func TestClientCertificate(t *testing.T) {
	t.Parallel()
	now := time.Now()
	auth, err := newAuthority(now)
	require.NoError(t, err)
	e := &Env{auth: auth, caPEM: auth.certPEM}
	certPEM, keyPEM, err := e.ClientCertificate("web-1-admin", "system:masters")
	require.NoError(t, err)
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	require.NoError(t, err, "certificate and key match")
	leaf, err := x509.ParseCertificate(pair.Certificate[0])
	require.NoError(t, err)
	assert.Equal(t, "web-1-admin", leaf.Subject.CommonName)
	assert.Equal(t, []string{"system:masters"}, leaf.Subject.Organization)
	roots := x509.NewCertPool()
	require.True(t, roots.AppendCertsFromPEM(e.CAData()))
	_, err = leaf.Verify(x509.VerifyOptions{Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}})
	assert.NoError(t, err)

	_, again, err := e.ClientCertificate("web-1-admin", "system:masters")
	require.NoError(t, err)
	assert.NotEqual(t, keyPEM, again)

	_, _, err = (&Env{}).ClientCertificate("x")
	assert.EqualError(t, err, "test environment has no certificate authority: it was not started")
}
