package examples

// The files of the workspace, with the names the examples use.

// manifests are manifests/: namespace shop in every member, the ConfigMap
// settings with a value per member, and the Deployment web (labelled
// app=web, for -l) whose three replicas an RSP splits between eu-1 and
// us-1, with another image in us-1. overlays/base and app/ hold the same
// files.
var manifests = map[string]string{
	"00-namespace.yaml": `apiVersion: types.kubefed.io/v1beta1
kind: FederatedNamespace
metadata:
  name: shop
  namespace: shop
spec:
  placement:
    clusterSelector: {}
`,
	"10-settings.yaml": `apiVersion: types.kubefed.io/v1beta1
kind: FederatedConfigMap
metadata:
  name: settings
  namespace: shop
spec:
  template:
    data:
      greeting: hello
      region: unknown
  placement:
    clusters:
    - name: eu-1
    - name: us-1
  overrides:
  - clusterName: eu-1
    clusterOverrides:
    - path: /data/region
      value: eu-west-1
  - clusterName: us-1
    clusterOverrides:
    - path: /data/region
      value: us-east-1
`,
	"20-web.yaml": `apiVersion: types.kubefed.io/v1beta1
kind: FederatedDeployment
metadata:
  name: web
  namespace: shop
  labels:
    app: web
spec:
  template:
    metadata:
      labels:
        app: web
    spec:
      replicas: 1
      selector:
        matchLabels:
          app: web
      template:
        metadata:
          labels:
            app: web
        spec:
          containers:
          - name: web
            image: nginx:1.27
  placement:
    clusterSelector: {}
  overrides:
  - clusterName: us-1
    clusterOverrides:
    - path: /spec/template/spec/containers/0/image
      value: nginx:1.27-alpine
---
apiVersion: scheduling.kubefed.io/v1alpha1
kind: ReplicaSchedulingPreference
metadata:
  name: web
  namespace: shop
spec:
  targetKind: FederatedDeployment
  totalReplicas: 3
  clusters:
    eu-1:
      weight: 2
    us-1:
      weight: 1
`,
}

// prodOverlay is overlays/prod/kustomization.yaml: the base with a label
// on every federated object, which changes nothing the members get.
const prodOverlay = `resources:
- ../base
labels:
- pairs:
    stage: prod
`

// plainDeployment is deploy.yaml, for federate -f.
const plainDeployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
  namespace: shop
  labels:
    app: api
spec:
  replicas: 2
  selector:
    matchLabels:
      app: api
  template:
    metadata:
      labels:
        app: api
    spec:
      containers:
      - name: api
        image: registry.example.com/shop/api:1.0
status:
  replicas: 2
`

// widgetCRD is the custom resource enable resolves through eu-1.
const widgetCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names:
    kind: Widget
    listKind: WidgetList
    plural: widgets
    singular: widget
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-preserve-unknown-fields: true
`

// dnsFiles are dns/: the shop namespace, a FederatedService web of type
// LoadBalancer in every member, a Domain and its ServiceDNSRecord.
var dnsFiles = map[string]string{
	"00-namespace.yaml": manifests["00-namespace.yaml"],
	"40-service.yaml": `apiVersion: types.kubefed.io/v1beta1
kind: FederatedService
metadata:
  name: web
  namespace: shop
spec:
  template:
    spec:
      type: LoadBalancer
      selector: {app: web}
      ports: [{port: 80}]
  placement:
    clusterSelector: {}
`,
	"50-dns.yaml": `apiVersion: multiclusterdns.kubefed.io/v1alpha1
kind: Domain
metadata:
  name: example
domain: example.com
---
apiVersion: multiclusterdns.kubefed.io/v1alpha1
kind: ServiceDNSRecord
metadata:
  name: web
  namespace: shop
spec:
  domainRef: example
  allowServiceWithoutEndpoints: true
`,
}

// dnsService is the Service of dns/ as a member holds it.
const dnsService = `apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: shop
spec:
  type: LoadBalancer
  selector: {app: web}
  ports: [{port: 80}]
`
