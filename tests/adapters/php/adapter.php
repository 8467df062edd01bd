<?php

/**
 * @file
 * RT-TOOL-3 in a plain PHP CLI, in the shape of a Drupal-style runtime: a tool
 * node that runs a tool per call and fills its output ports.
 *
 *   php adapter.php [--variant conforming|assoc]
 *
 * JSON is decoded to objects (stdClass): a JSON object stays an object and a
 * JSON array an array, so an empty payload `{}` leaves as `{}`. The variant
 * that must fail is marked VARIANT.
 */

declare(strict_types=1);

// Stdout carries the protocol alone: any notice goes to stderr.
ini_set('display_errors', 'stderr');

const VARIANTS = ['conforming', 'assoc'];
// Results nest up to 512 levels inside a request or a reply a few levels deep.
const DEPTH = 4096;
// Out: payloads unchanged (`1.0` stays `1.0`), strings as they came.
const ENCODE = JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE | JSON_PRESERVE_ZERO_FRACTION | JSON_THROW_ON_ERROR;

/**
 * A tool node: one message per call for the model, one port for artifacts.
 */
final class ToolNode {

  /**
   * Whether this request went through escape_json() (see the WORKAROUND below).
   */
  public bool $escaped = FALSE;

  public function __construct(private readonly bool $assoc) {}

  /**
   * Runs every call; returns the node's output ports.
   */
  public function process(array $calls, bool $exposed): array {
    $messages = [];
    $artifacts = [];
    foreach ($calls as $call) {
      $id = $this->get($call, 'tool_call_id');
      $result = $this->get($call, 'result');
      $prose = $this->prose($this->get($result, 'data'));
      $messages[] = ['tool_call_id' => $id, 'content' => $this->escaped ? escape_string($prose) : $prose];
      foreach ($this->kept($result) as $artifact) {
        // Key by key, with the call's own id (RT-TOOL-3 ¶1).
        $artifacts[] = ['type' => $this->get($artifact, 'type'), 'payload' => $this->get($artifact, 'payload'), 'tool_call_id' => $id];
      }
    }
    // The port is hidden unless the author exposed it (¶2); delivery above
    // never looked at it (¶4).
    return ['messages' => $messages, 'tool_artifacts' => $artifacts, 'exposed' => $exposed];
  }

  /**
   * The prose of a result's `data` alone (¶3), never its error or artifacts;
   * an object's reserved `artifacts` key is dropped first (RT-TOOL-2).
   */
  private function prose(mixed $data): string {
    if ($this->isObject($data)) {
      $data = is_array($data) ? $data : clone $data;
      if (is_array($data)) {
        unset($data['artifacts']);
      }
      else {
        unset($data->artifacts);
      }
      if (array_keys((array) $data) === ['result'] && $this->text($this->get($data, 'result')) !== NULL) {
        return $this->text($this->get($data, 'result'));
      }
    }
    if ($this->text($data) !== NULL) {
      return $this->text($data);
    }
    if ($data === NULL) {
      return '';
    }
    // Any rendering of `data` conforms: here compact JSON, keys as they came.
    $json = json_encode($data, ENCODE, DEPTH);
    return $this->escaped ? unescape_json($json) : $json;
  }

  /**
   * RT-TOOL-2's filter: artifacts of a successful call only, each an object
   * with a non-empty string `type` and an object `payload`.
   */
  private function kept(mixed $result): array {
    $artifacts = $this->get($result, 'artifacts');
    if (!$this->isObject($result) || $this->get($result, 'success') !== TRUE || !is_array($artifacts) || !array_is_list($artifacts)) {
      return [];
    }
    return array_filter($artifacts, fn($a) => $this->isObject($a)
      && ($this->text($this->get($a, 'type')) ?? '') !== ''
      && $this->isObject($this->get($a, 'payload')));
  }

  private function isObject(mixed $v): bool {
    // VARIANT assoc: with associative arrays a JSON object is an array that is
    // not a list, and `{}` and `[]` are the same empty array.
    return $this->assoc ? is_array($v) && ($v === [] || !array_is_list($v)) : $v instanceof stdClass;
  }

  private function get(mixed $v, string $key): mixed {
    if ($this->assoc) {
      return is_array($v) ? ($v[$key] ?? NULL) : NULL;
    }
    return $v instanceof stdClass ? ($v->{$key} ?? NULL) : NULL;
  }

  /**
   * A JSON string as it was sent, or NULL for anything else.
   */
  private function text(mixed $v): ?string {
    return is_string($v) ? ($this->escaped ? unescape_string($v) : $v) : NULL;
  }

}

/*
 * WORKAROUND for two limits of PHP's JSON (PHP 8.2.36; FINDINGS.md,
 * repro-json-limits.php), which the plain json_decode()/json_encode() path
 * meets on valid cases:
 * - json_decode() to objects refuses an object key that starts with U+0000
 *   (JSON_ERROR_INVALID_PROPERTY_NAME): a property name cannot start with NUL;
 * - a number past the double range (1e400) decodes to INF, which json_encode()
 *   refuses (JSON_ERROR_INF_OR_NAN), so it cannot pass through unchanged.
 * When either happens the request is decoded again from escaped text: such a
 * key gets the prefix ESC, such a number becomes the string ESC . its digits,
 * and any string that starts with ESC gets one more ESC, so the mapping is one
 * to one; the reply's JSON text is unescaped the same way. The regex walks
 * every string and number token in order, so it never loses its place; a
 * string followed by `:` is a key.
 */
const ESC = "\u{E000}";
const TOKEN = '/"(?:[^"\\\\]++|\\\\.)*+"(\s*:)?|-?\d++(?:\.\d++)?(?:[eE][-+]?\d++)?/';

function escape_json(string $json): string {
  return preg_replace_callback(TOKEN, function (array $m): string {
    $key = isset($m[1]);
    $token = $key ? substr($m[0], 0, -strlen($m[1])) : $m[0];
    $value = json_decode($token, FALSE, 1, JSON_THROW_ON_ERROR);
    if (is_float($value) && is_infinite($value)) {
      return json_encode(ESC . $token, ENCODE);
    }
    if (is_string($value) && (str_starts_with($value, ESC) || ($key && str_starts_with($value, "\0")))) {
      return json_encode(ESC . $value, ENCODE) . ($key ? $m[1] : '');
    }
    return $m[0];
  }, $json) ?? throw new RuntimeException(preg_last_error_msg());
}

function unescape_json(string $json): string {
  return preg_replace_callback(TOKEN, function (array $m): string {
    // json_encode wrote ESC as itself (JSON_UNESCAPED_UNICODE).
    if (!str_starts_with($m[0], '"' . ESC)) {
      return $m[0];
    }
    $rest = substr($m[0], 1 + strlen(ESC));
    $number = !isset($m[1]) && !str_starts_with($rest, ESC);
    return $number ? substr($rest, 0, -1) : '"' . $rest;
  }, $json) ?? throw new RuntimeException(preg_last_error_msg());
}

function escape_string(string $s): string {
  return str_starts_with($s, ESC) ? ESC . $s : $s;
}

/**
 * The string sent, or NULL for a number escape_json() made a string.
 */
function unescape_string(string $s): ?string {
  if (!str_starts_with($s, ESC)) {
    return $s;
  }
  $rest = substr($s, strlen(ESC));
  return str_starts_with($rest, ESC) ? $rest : NULL;
}

/**
 * One request line in, its reply line out (NULL for `stop`).
 */
function respond(ToolNode $node, string $line, bool $assoc, bool $escape): ?string {
  // Conforming: json_decode($line) gives stdClass objects. No
  // JSON_BIGINT_AS_STRING: it would turn a big number into a string on the
  // way out; an integer past PHP_INT_MAX becomes a double instead, which the
  // oracle accepts with a warning.
  // VARIANT assoc: json_decode($line, true), associative arrays.
  $req = (array) json_decode($escape ? escape_json($line) : $line, $assoc, DEPTH, JSON_THROW_ON_ERROR);
  $cmd = $req['cmd'] ?? NULL;
  if ($cmd === 'stop') {
    return NULL;
  }
  if ($cmd === 'start') {
    $reply = ['ready' => TRUE, 'version' => 1, 'implementation' => ['name' => NAME, 'language' => 'php']];
  }
  elseif ($cmd === 'run') {
    $case = $req['case'];
    $calls = $assoc ? $case['calls'] : $case->calls;
    $exposed = ($assoc ? $case['exposed'] ?? NULL : $case->exposed ?? NULL) === TRUE;
    $node->escaped = $escape;
    $reply = ['seq' => $req['seq'], 'outcome' => $node->process($calls, $exposed)];
  }
  else {
    $reply = ['seq' => $req['seq'] ?? NULL, 'errored' => TRUE, 'message' => 'unknown cmd'];
  }
  $json = json_encode($reply, ENCODE, DEPTH);
  return $escape ? unescape_json($json) : $json;
}

$variant = 'conforming';
$args = array_slice($argv, 1);
if ($args !== []) {
  $variant = $args[0] === '--variant' ? ($args[1] ?? '') : $args[0];
}
if (!in_array($variant, VARIANTS, TRUE)) {
  fwrite(STDERR, 'usage: php adapter.php [--variant ' . implode('|', VARIANTS) . "]\n");
  exit(2);
}
define('NAME', 'php ' . PHP_VERSION . " ToolNode, variant $variant");
$assoc = $variant === 'assoc';
$node = new ToolNode($assoc);

while (($line = fgets(STDIN)) !== FALSE) {
  if (trim($line) === '') {
    continue;
  }
  try {
    try {
      $reply = respond($node, $line, $assoc, FALSE);
    }
    catch (JsonException $e) {
      // The WORKAROUND above: only when PHP's JSON could not carry the case.
      if (!in_array($e->getCode(), [JSON_ERROR_INVALID_PROPERTY_NAME, JSON_ERROR_INF_OR_NAN], TRUE)) {
        throw $e;
      }
      $reply = respond($node, $line, $assoc, TRUE);
    }
  }
  catch (Throwable $e) {
    // Never crash: answer the request's seq, found even in an unreadable line.
    $seq = preg_match('/"seq"\s*:\s*(\d+)/', $line, $m) ? (int) $m[1] : NULL;
    $reply = json_encode(['seq' => $seq, 'errored' => TRUE, 'message' => get_class($e) . ': ' . $e->getMessage()], ENCODE);
  }
  if ($reply === NULL) {
    exit(0);
  }
  if (fwrite(STDOUT, $reply . "\n") === FALSE || !fflush(STDOUT)) {
    exit(1);  // the reader went away
  }
}
