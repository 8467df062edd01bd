<?php

/**
 * @file
 * Findings (PHP 8.2.36 from Debian): two valid payloads that PHP's JSON
 * extension cannot carry through unchanged, whatever the runtime does with
 * them in between (RT-TOOL-3 ¶1: payloads pass through unchanged):
 * 1. json_decode() to objects cannot read an object key that starts with
 *    U+0000. It throws JsonException JSON_ERROR_INVALID_PROPERTY_NAME ("The
 *    decoded property name is invalid"), since a property name starting with a
 *    NUL byte is how PHP mangles private and protected properties. So
 *    `{"\u0000": {}}` cannot be decoded the conforming way (to stdClass), and
 *    associative decoding, which can read it, turns the `{}` into `[]`.
 * 2. A number past the double range, `1e400`, decodes to INF, and json_encode()
 *    refuses INF (JSON_ERROR_INF_OR_NAN; JSON_PARTIAL_OUTPUT_ON_ERROR writes 0).
 *
 * This script asserts that behaviour, without the oracle, and fails loudly when
 * it changes, so that an upgrade that lifts a limit is noticed and the
 * adapter's workaround (escape_json/unescape_json in adapter.php) can shrink.
 *   php repro-json-limits.php     exit 0: the limits are there, as recorded; 1: they changed
 */

declare(strict_types=1);

/**
 * What json_decode to objects does with $json: 'ok' or the error code.
 */
function decoded(string $json): string {
  try {
    json_decode($json, FALSE, 512, JSON_THROW_ON_ERROR);
    return 'ok';
  }
  catch (JsonException $e) {
    return 'error ' . $e->getCode();
  }
}

$refused = 'error ' . JSON_ERROR_INVALID_PROPERTY_NAME;
$recorded = [
  '{"\u0000":{}}' => $refused,
  '{"\u0000a":1}' => $refused,
  '{"payload":{"k":{"\u0000":1}}}' => $refused,
  '{"a\u0000":1}' => 'ok',
  '{"":{}}' => 'ok',
];
$changed = FALSE;
foreach ($recorded as $json => $want) {
  $got = decoded($json);
  $line = 'PHP ' . PHP_VERSION . ": json_decode('$json') to objects: $got";
  if ($got === $want) {
    echo "$line (as recorded)\n";
  }
  else {
    $changed = TRUE;
    fwrite(STDERR, "$line, but $want was recorded\n");
  }
}
// Associative decoding reads the key, and loses the object on the way out.
$assoc = json_encode(json_decode('{"\u0000":{}}', TRUE));
if ($assoc === '{"\u0000":[]}') {
  echo "PHP " . PHP_VERSION . ": json_decode(..., true) then json_encode: $assoc (as recorded)\n";
}
else {
  $changed = TRUE;
  fwrite(STDERR, "associative round trip gave $assoc, but {\"\\u0000\":[]} was recorded\n");
}
// 1e400 decodes to INF, which cannot be encoded.
$big = json_decode('{"big":1e400}');
try {
  $out = json_encode($big, JSON_THROW_ON_ERROR);
}
catch (JsonException $e) {
  $out = 'error ' . $e->getCode();
}
$partial = json_encode($big, JSON_PARTIAL_OUTPUT_ON_ERROR);
$got = var_export($big->big, TRUE) . " / $out / $partial";
$want = 'INF / error ' . JSON_ERROR_INF_OR_NAN . ' / {"big":0}';
if ($got === $want) {
  echo "PHP " . PHP_VERSION . ": 1e400 decodes to, encodes to, encodes partially to: $got (as recorded)\n";
}
else {
  $changed = TRUE;
  fwrite(STDERR, "1e400 decodes to, encodes to, encodes partially to: $got, but $want was recorded\n");
}
if ($changed) {
  fwrite(STDERR, "FAIL: PHP's JSON limits changed: if one is gone, shrink the WORKAROUND in adapter.php (escape_json/unescape_json), this script and FINDINGS.md\n");
  exit(1);
}
