package federation

import (
	"testing"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestScheduled: each RSP finds the object of its targetKind, namespace and
// name, or none; a target two RSPs name is planned by the first, and an
// RSP without its target plans nothing.
func TestScheduled(t *testing.T) {
	obj := func(kind, ns, name string) *Object {
		return &Object{TypeMeta: metav1.TypeMeta{Kind: kind}, ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	}
	rsp := func(kind, ns, name string) *ReplicaSchedulingPreference {
		return &ReplicaSchedulingPreference{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: RSPSpec{TargetKind: kind}}
	}
	web, api, rs := obj("FederatedDeployment", "shop", "web"), obj("FederatedDeployment", "shop", "api"), obj("FederatedReplicaSet", "shop", "web")
	first, again := rsp("FederatedDeployment", "shop", "web"), rsp("FederatedDeployment", "shop", "web")
	other, missing, wrongNS := rsp("FederatedReplicaSet", "shop", "web"), rsp("FederatedDeployment", "shop", "gone"), rsp("FederatedDeployment", "other", "api")
	set := &Set{Objects: []*Object{web, api, rs}, RSPs: []*ReplicaSchedulingPreference{first, missing, again, other, wrongNS}}

	assert.Equal(t, []Scheduled{{first, web}, {missing, nil}, {again, web}, {other, rs}, {wrongNS, nil}}, set.Scheduled())
	planned := set.Planned()
	assert.Same(t, first, planned[web.ID()], "the first RSP that names a target plans it")
	assert.Same(t, other, planned[rs.ID()])
	assert.Len(t, planned, 2, "an RSP without its target plans nothing")
	assert.Nil(t, (&Set{Objects: []*Object{web}}).Scheduled())
}
