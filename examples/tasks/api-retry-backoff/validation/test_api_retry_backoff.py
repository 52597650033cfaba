import json


def test_result_file():
    results = json.load(open('_test_results.json'))
    assert not results['failed']
