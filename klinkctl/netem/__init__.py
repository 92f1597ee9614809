"""Link-level network delay with tc netem: the spec and its tc command lines (spec), the capability probe
and where a qdisc goes (links), the local generator's network namespace (namespace), and what
`klinkctl netem apply/show/clear` do with them (control). Generator-side delay models live in klinkctl.delay."""
