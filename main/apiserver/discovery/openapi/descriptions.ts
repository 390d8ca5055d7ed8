// The few descriptions our OpenAPI documents carry: what each kind is, and
// the fields every kind shares. Enough for `kubectl explain deployment` and
// `kubectl explain deployment.spec` to say something useful; the rest of the
// fields show kubectl's "<no description>".

export const typeMetaDescriptions = {
  apiVersion:
    'APIVersion names the versioned schema of this representation of the object. Servers convert recognised schemas to the latest internal value and may reject unrecognised values.',
  kind: 'Kind is the REST resource this object represents, in CamelCase. Servers may infer it from the endpoint the client submits requests to. Cannot be updated.',
};

export const commonFieldDescriptions: Record<string, string> = {
  metadata: "Standard object's metadata: name, namespace, labels, annotations, owner references and the fields the system maintains.",
  spec: 'The desired behaviour of the object, as the user declares it.',
  status: 'The most recently observed state of the object, written by the system. Read-only for clients.',
  listMetadata: 'Standard list metadata: the resourceVersion of the list and the continue token of a chunked list.',
  items: 'The objects in the list.',
};

/** Keyed by Go type name. */
export const messageDescriptions: Record<string, string> = {
  Deployment: 'Deployment declares the desired state of a set of identical Pods and rolls them out through ReplicaSets.',
  DeploymentSpec: 'DeploymentSpec is the desired behaviour of a Deployment: how many replicas, which pods it selects, the pod template and the rollout strategy.',
  DeploymentStatus: 'DeploymentStatus is the most recently observed status of a Deployment.',
  DeploymentStrategy: 'DeploymentStrategy describes how existing pods are replaced by new ones.',
  ReplicaSet: 'ReplicaSet keeps a given number of pod replicas running at any time.',
  ReplicaSetSpec: 'ReplicaSetSpec is the desired behaviour of a ReplicaSet.',
  ReplicaSetStatus: 'ReplicaSetStatus is the most recently observed status of a ReplicaSet.',
  Pod: 'Pod is a group of containers that run together on one host. Clients create pods; the scheduler binds them to nodes.',
  PodSpec: 'PodSpec describes a pod: its containers, volumes and scheduling constraints.',
  PodStatus: 'PodStatus is the most recently observed status of a pod; it may lag behind the node.',
  PodTemplateSpec: 'PodTemplateSpec describes the pods created from a template.',
  Container: 'A single application container to run within a pod.',
  Service: 'Service is a named abstraction of a network service: a stable address and the selector that picks the pods answering it.',
  ServiceSpec: 'ServiceSpec describes the attributes a user sets on a service.',
  ServiceStatus: 'ServiceStatus is the current status of a service.',
  Endpoints: 'Endpoints lists the addresses and ports that implement a service.',
  ConfigMap: 'ConfigMap holds configuration data for pods to consume.',
  Secret: 'Secret holds secret data of a certain type. Values in data are base64 encoded.',
  ServiceAccount: 'ServiceAccount binds a name, an identity that can be authenticated and authorised, and a set of secrets.',
  Namespace: 'Namespace provides a scope for names.',
  NamespaceSpec: 'NamespaceSpec describes the attributes of a namespace.',
  NamespaceStatus: 'NamespaceStatus is the current status of a namespace.',
  Node: 'Node is a worker node in the cluster.',
  NodeSpec: 'NodeSpec describes the attributes a node is created with.',
  NodeStatus: 'NodeStatus is the most recently observed status of a node.',
  Event: 'Event reports something that happened to an object in the cluster. Events are informative and best effort.',
  Binding: 'Binding ties one object to another, for example a pod to the node it is scheduled on.',
  Lease: 'Lease records who holds a lock and until when: node heartbeats and leader election.',
  LeaseSpec: 'LeaseSpec is the specification of a Lease.',
  Scale: 'Scale represents a scaling request for a resource.',
  ScaleSpec: 'ScaleSpec describes the attributes of a scale subresource.',
  ScaleStatus: 'ScaleStatus represents the current status of a scale subresource.',
  ObjectMeta: 'ObjectMeta is metadata that all persisted resources must have.',
  ListMeta: 'ListMeta describes metadata that synthetic resources such as lists must have.',
  LabelSelector: 'A label selector is a label query over a set of resources. matchLabels and matchExpressions are ANDed.',
  Status: 'Status is the return value for calls that do not return other objects.',
  Time: 'Time is a point in time, written as an RFC 3339 date in UTC with whole seconds.',
  MicroTime: 'MicroTime is a point in time with microsecond precision.',
  Quantity: 'Quantity is a fixed-point number with an optional suffix: 100m, 1.5, 128Mi, 2Gi.',
  IntOrString: 'IntOrString holds either an int32 or a string.',
};
