#!/usr/bin/python3
"""The operation reference (docs/operations.md) is what scripts/gen-operations.py writes from
api/ and scripts/operation-notes.yaml, and the script refuses notes that leave a served operation
or a member out, so the page cannot silently fall behind the operations served:

    tests/docs/operations_test.py
"""
import copy
import importlib.util
import sys
import unittest
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
SPEC = importlib.util.spec_from_file_location("gen_operations", ROOT / "scripts/gen-operations.py")
generator = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(generator)


class OperationReference(unittest.TestCase):
    def setUp(self):
        self.notes = yaml.safe_load(generator.NOTES.read_text())
        self.original_load = generator.yaml.safe_load

    def tearDown(self):
        generator.yaml.safe_load = self.original_load

    def render_with(self, notes):
        generator.yaml.safe_load = lambda _text: notes
        return generator.render()

    def operations(self, notes):
        return {name: spec for section in notes["sections"]
                for name, spec in section["operations"].items()}

    def test_the_committed_page_is_what_the_script_writes(self):
        self.assertEqual(generator.PAGE.read_text(), generator.render(),
                         "docs/operations.md is out of date: run scripts/gen-operations.py")

    def test_every_served_operation_has_a_section(self):
        page = generator.render()
        for _service, operation in generator.served_operations():
            self.assertIn(f"\n### {operation}\n", page)

    def test_a_served_operation_without_notes_fails(self):
        notes = copy.deepcopy(self.notes)
        del notes["sections"][0]["operations"]["DeleteModel"]
        with self.assertRaisesRegex(generator.Problem, "without notes.*DeleteModel"):
            self.render_with(notes)

    def test_a_member_left_unclassified_fails(self):
        notes = copy.deepcopy(self.notes)
        del self.operations(notes)["UpdateEndpoint"]["ignored"]["DeploymentConfig"]
        with self.assertRaisesRegex(generator.Problem, "UpdateEndpoint: DeploymentConfig is neither"):
            self.render_with(notes)

    def test_a_member_the_input_does_not_have_fails(self):
        notes = copy.deepcopy(self.notes)
        self.operations(notes)["CreateModel"]["ignored"] = {"NoSuchMember": ""}
        with self.assertRaisesRegex(generator.Problem, "CreateModel: ignored names NoSuchMember"):
            self.render_with(notes)

    def test_a_member_classified_twice_fails(self):
        notes = copy.deepcopy(self.notes)
        self.operations(notes)["CreateModel"]["ignored"] = {"ModelName": ""}
        with self.assertRaisesRegex(generator.Problem, "ModelName is classified twice"):
            self.render_with(notes)

    def test_notes_for_an_operation_not_served_fail(self):
        notes = copy.deepcopy(self.notes)
        notes["sections"][0]["operations"]["CreateNotebookInstance"] = {"about": "x"}
        with self.assertRaisesRegex(generator.Problem, "CreateNotebookInstance: has notes but is not"):
            self.render_with(notes)


if __name__ == "__main__":
    sys.exit(unittest.main())
