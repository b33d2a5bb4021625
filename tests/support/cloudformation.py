"""A CloudFormation template as a deployed stack would see it: parameters filled, intrinsics
resolved, so a test can hand a task's environment to the code that reads it.

Resolves the intrinsics our templates use (Ref, Fn::Sub, Fn::GetAtt, Fn::Join, Fn::Select,
Fn::If, Fn::Equals, Fn::Not) and fails on any other, so a new one cannot slip past unresolved.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

ACCOUNT, REGION, PARTITION = "123456789012", "eu-west-2", "aws"
PSEUDO = {
    "AWS::AccountId": ACCOUNT,
    "AWS::Region": REGION,
    "AWS::Partition": PARTITION,
    "AWS::StackName": "nrf",
    "AWS::URLSuffix": "amazonaws.com",
    "AWS::NoValue": None,
}


def load_template(path: Path) -> dict[str, Any]:
    """The template through cfn-lint's loader, which understands the short-form tags (!Ref)."""
    from cfnlint.decode.cfn_yaml import load

    data: dict[str, Any] = load(str(path))
    return data


class Stack:
    """One template with its parameters (defaults filled in); ``resolve`` any part of it."""

    def __init__(self, template: Mapping[str, Any], parameters: Mapping[str, str]) -> None:
        self.template = template
        declared = template.get("Parameters", {})
        missing = [n for n, p in declared.items() if n not in parameters and "Default" not in p]
        if missing:
            raise ValueError(f"parameters without a value or default: {missing}")
        unknown = set(parameters) - set(declared)
        if unknown:
            raise ValueError(f"not parameters of the template: {sorted(unknown)}")
        self.parameters = {n: str(parameters.get(n, p.get("Default"))) for n, p in declared.items()}
        for name, value in self.parameters.items():
            pattern = declared[name].get("AllowedPattern")
            if pattern and not re.fullmatch(pattern, value):
                raise ValueError(f"parameter {name}={value!r} does not match {pattern}")

    @property
    def resources(self) -> Mapping[str, Any]:
        return dict(self.template["Resources"])

    def resource(self, name: str) -> dict[str, Any]:
        resolved: dict[str, Any] = self.resolve(self.template["Resources"][name])
        return resolved

    def resolve(self, node: Any) -> Any:
        if isinstance(node, Mapping):
            if len(node) == 1:
                [(key, value)] = node.items()
                if key == "Ref" or key.startswith("Fn::"):
                    return self._intrinsic(key, value)
            resolved = {k: self.resolve(v) for k, v in node.items()}
            return {k: v for k, v in resolved.items() if v is not None}
        if isinstance(node, list):
            return [v for v in (self.resolve(item) for item in node) if v is not None]
        return node

    def _intrinsic(self, key: str, value: Any) -> Any:
        if key == "Ref":
            return self._ref(value)
        if key == "Fn::Sub":
            text, extra = (value, {}) if isinstance(value, str) else value
            names = {k: self.resolve(v) for k, v in extra.items()}
            return re.sub(r"\$\{([^}]+)\}", lambda m: self._sub(m.group(1), names), text)
        if key == "Fn::GetAtt":
            resource, attribute = value if isinstance(value, list) else value.split(".", 1)
            return self._attribute(resource, attribute)
        if key == "Fn::Join":
            separator, items = value
            return separator.join(str(i) for i in self.resolve(items))
        if key == "Fn::Select":
            index, items = value
            return self.resolve(items)[int(self.resolve(index))]
        if key == "Fn::If":
            condition, yes, no = value
            return self.resolve(yes if self.condition(condition) else no)
        if key == "Fn::Equals":
            left, right = (self.resolve(v) for v in value)
            return str(left) == str(right)
        if key == "Fn::Not":
            return not self.resolve(value[0])
        raise ValueError(f"intrinsic {key} is not resolved by tests/support/cloudformation.py")

    def condition(self, name: str) -> bool:
        return bool(self.resolve(self.template["Conditions"][name]))

    def _sub(self, name: str, names: Mapping[str, Any]) -> str:
        if name in names:
            return str(names[name])
        if "." in name:
            resource, attribute = name.split(".", 1)
            return str(self._attribute(resource, attribute))
        return str(self._ref(name))

    def _ref(self, name: str) -> Any:
        if name in PSEUDO:
            return PSEUDO[name]
        if name in self.parameters:
            value = self.parameters[name]
            kind = self.template["Parameters"][name]["Type"]
            return value.split(",") if kind.startswith("List<") else value
        resource = self.template["Resources"][name]
        props = resource.get("Properties", {})
        kind = resource["Type"]
        if kind == "AWS::S3::Bucket":
            return self.resolve(props["BucketName"])
        if kind == "AWS::SQS::Queue":
            return (
                f"https://sqs.{REGION}.amazonaws.com/{ACCOUNT}/{self.resolve(props['QueueName'])}"
            )
        return f"{name}-physical-id"

    def _attribute(self, name: str, attribute: str) -> Any:
        resource = self.template["Resources"][name]
        props, kind = resource.get("Properties", {}), resource["Type"]
        if kind == "AWS::S3::Bucket" and attribute == "Arn":
            return f"arn:{PARTITION}:s3:::{self._ref(name)}"
        if kind == "AWS::SQS::Queue":
            queue = self.resolve(props["QueueName"])
            if attribute == "QueueName":
                return queue
            return f"arn:{PARTITION}:sqs:{REGION}:{ACCOUNT}:{queue}"
        if attribute == "Arn":
            return f"arn:{PARTITION}:{kind.split('::')[1].lower()}:{REGION}:{ACCOUNT}:{name}"
        return f"{name}-{attribute}"


def task_environment(
    stack: Stack, task_definition: str, secrets: Mapping[str, str], container: str = "nrf"
) -> dict[str, str]:
    """What the container's process sees: its Environment, and each Secret by its ARN's value.

    ``secrets`` maps a secret's ARN (as the parameters give it) to the value stored there.
    """
    task = stack.resource(task_definition)["Properties"]
    [found] = [c for c in task["ContainerDefinitions"] if c["Name"] == container]
    env = {e["Name"]: str(e.get("Value", "")) for e in found.get("Environment", [])}
    for secret in found.get("Secrets", []):
        env[secret["Name"]] = secrets[secret["ValueFrom"]]
    return env


def role_allows(stack: Stack, role: str, action: str, arn: str) -> bool:
    """Whether one of the role's inline policies allows ``action`` on ``arn`` (wildcards as IAM)."""
    for policy in stack.resource(role)["Properties"].get("Policies", []):
        for statement in policy["PolicyDocument"]["Statement"]:
            actions = statement["Action"]
            resources = statement["Resource"]
            actions = [actions] if isinstance(actions, str) else actions
            resources = [resources] if isinstance(resources, str) else resources
            if statement["Effect"] != "Allow":
                continue
            if any(fnmatch.fnmatchcase(action, a) for a in actions) and any(
                fnmatch.fnmatchcase(arn, r) for r in resources
            ):
                return True
    return False


def writable_paths(stack: Stack, task_definition: str, container: str = "nrf") -> list[str]:
    """Where the container may write when its root filesystem is read-only: its mount points.

    Each must name a volume the task declares (ECS refuses the task definition otherwise).
    """
    task = stack.resource(task_definition)["Properties"]
    declared = {v["Name"] for v in task.get("Volumes", [])}
    [found] = [c for c in task["ContainerDefinitions"] if c["Name"] == container]
    paths = []
    for mount in found.get("MountPoints", []):
        if mount["SourceVolume"] not in declared:
            raise ValueError(f"mount point {mount} names no volume of {task_definition}")
        if not mount.get("ReadOnly", False):
            paths.append(str(mount["ContainerPath"]))
    return paths


def read_only_root(stack: Stack, task_definition: str, container: str = "nrf") -> bool:
    task = stack.resource(task_definition)["Properties"]
    [found] = [c for c in task["ContainerDefinitions"] if c["Name"] == container]
    return bool(found.get("ReadonlyRootFilesystem", False))
