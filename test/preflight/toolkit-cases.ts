/**
 * Test cases of the NVIDIA Container Toolkit, as data, with where each comes from.
 *
 * - GO_*: nvidia-container-toolkit `internal/config/image/cuda_image_test.go` at
 *   d34b3046758cb1a5db606b2a39519c731bbf9f56 (TestParseMajorMinorVersionValid, TestParseMajorMinorVersionInvalid,
 *   TestGetRequirements), copied case for case.
 * - DSL_*: libnvidia-container `src/cli/dsl.c` + `src/cli/configure.c` at
 *   63d366ee3b4183513c310ac557bf31b05b83328f; each expected result is what those functions return, worked out from
 *   the code (the comment says which line decides). The conditions of the toolkit's Go `internal/requirements`
 *   tests (constraints/factory_test.go TestParse, TestNewConstraintFromRequirement) are among them with dsl.c's
 *   verdict: that Go evaluator serves the CSV (Tegra) mode only; `--gpus` containers go through dsl.c.
 */

/** cuda_image_test.go TestParseMajorMinorVersionValid. */
export const GO_PARSE_MAJOR_MINOR_VALID: readonly [string, string][] = [
  ['0', '0.0'],
  ['8', '8.0'],
  ['7.5', '7.5'],
  ['9.0.116', '9.0'],
  ['4294967295.4294967295.4294967295', '4294967295.4294967295'],
  ['v11.6', '11.6']
]

/** cuda_image_test.go TestParseMajorMinorVersionInvalid. */
export const GO_PARSE_MAJOR_MINOR_INVALID: readonly string[] = [
  'foo',
  'foo.5.10',
  '9.0.116.50',
  '9.0.116foo',
  '7.foo',
  '9.0.bar',
  '9.4294967296',
  '9.0.116.',
  '9..0',
  '9.',
  '.5.10',
  '-9',
  '+9',
  '-9.1.116',
  '-9.-1.-116'
]

/** cuda_image_test.go TestGetRequirements: ENV → the requirement strings (order-free, as ElementsMatch). */
export const GO_GET_REQUIREMENTS: readonly { description: string; env: string[]; requirements: string[] }[] =
  [
    {
      description: 'NVIDIA_REQUIRE_JETPACK is ignored',
      env: ['NVIDIA_REQUIRE_JETPACK=csv-mounts=all'],
      requirements: []
    },
    {
      description: 'NVIDIA_REQUIRE_JETPACK_HOST_MOUNTS is ignored',
      env: ['NVIDIA_REQUIRE_JETPACK_HOST_MOUNTS=base-only'],
      requirements: []
    },
    {
      description: 'single requirement set',
      env: ['NVIDIA_REQUIRE_CUDA=cuda>=11.6'],
      requirements: ['cuda>=11.6']
    },
    {
      description: 'requirements are concatenated requirement set',
      env: ['NVIDIA_REQUIRE_CUDA=cuda>=11.6', 'NVIDIA_REQUIRE_BRAND=brand=tesla'],
      requirements: ['cuda>=11.6', 'brand=tesla']
    },
    { description: 'legacy image', env: ['CUDA_VERSION=11.6'], requirements: ['cuda>=11.6'] },
    {
      description: 'legacy image with additional requirement',
      env: ['CUDA_VERSION=11.6', 'NVIDIA_REQUIRE_BRAND=brand=tesla'],
      requirements: ['cuda>=11.6', 'brand=tesla']
    },
    {
      description: 'NVIDIA_DISABLE_REQUIRE ignores requirements',
      env: [
        'NVIDIA_REQUIRE_CUDA=cuda>=11.6',
        'NVIDIA_REQUIRE_BRAND=brand=tesla',
        'NVIDIA_DISABLE_REQUIRE=true'
      ],
      requirements: []
    },
    {
      description: 'NVIDIA_DISABLE_REQUIRE ignores legacy image requirements',
      env: ['CUDA_VERSION=11.6', 'NVIDIA_REQUIRE_BRAND=brand=tesla', 'NVIDIA_DISABLE_REQUIRE=true'],
      requirements: []
    }
  ]

export type DslExpect = 'satisfied' | 'unsatisfied' | 'invalid'

/**
 * dsl.c grammar on one host: driver 580.65.06, CUDA 13.0, one visible GPU of brand `Nvidia` (nvidia-smi
 * "NVIDIA"), compute capability 9.0. `message` is the toolkit's error text where it matters.
 */
export const DSL_CASES: readonly { predicate: string; expect: DslExpect; why: string; message?: string }[] = [
  { predicate: '', expect: 'satisfied', why: 'dsl_evaluate: no alternative, ret stays true' },
  { predicate: '   ', expect: 'satisfied', why: 'empty alternatives are skipped' },
  { predicate: 'cuda>=13.0', expect: 'satisfied', why: 'check_cuda_version' },
  { predicate: 'CUDA>=13.0', expect: 'satisfied', why: 'rule lookup with str_case_equal' },
  { predicate: 'Brand=NVIDIA', expect: 'satisfied', why: 'dsl_compare_string is case-insensitive' },
  { predicate: '  cuda>=12.0,,  ', expect: 'satisfied', why: 'empty conditions are skipped' },
  // Lazy OR: the first true alternative ends the evaluation, whatever follows.
  {
    predicate: 'cuda>=13.0 foo=bar',
    expect: 'satisfied',
    why: 'first alternative true: foo=bar never parsed'
  },
  {
    predicate: 'cuda>=13.0 cuda=>1',
    expect: 'satisfied',
    why: 'the malformed second alternative is not reached'
  },
  // Lazy AND: an alternative stops at its first false condition.
  {
    predicate: 'cuda>=99,foo=bar',
    expect: 'unsatisfied',
    why: 'cuda>=99 false: foo=bar never parsed',
    message:
      'unsatisfied condition: cuda>=99,foo=bar, please update your driver to a newer version, or use an earlier cuda container'
  },
  { predicate: 'foo=bar cuda>=13.0', expect: 'invalid', why: 'unknown property reached first' },
  { predicate: 'cuda>=99 foo=bar', expect: 'invalid', why: 'second alternative reached after a false first' },
  // The toolkit's Go tests' conditions (factory_test.go), with dsl.c's verdict.
  { predicate: 'notvalid', expect: 'invalid', why: 'no operator: strspn at the end is 0' },
  { predicate: 'foo=45', expect: 'invalid', why: 'no rule named foo (the Go CSV evaluator ignores it)' },
  { predicate: 'cuda=foo', expect: 'invalid', why: 'dsl_compare_version: not digits and dots' },
  { predicate: 'cuda>=11.6', expect: 'satisfied', why: '13.0 >= 11.6' },
  { predicate: 'cuda>11.6', expect: 'satisfied', why: '13.0 > 11.6' },
  { predicate: 'cuda<=11.6', expect: 'unsatisfied', why: '13.0 <= 11.6 false' },
  { predicate: 'cuda<11.6', expect: 'unsatisfied', why: '13.0 < 11.6 false' },
  { predicate: 'cuda=11.6', expect: 'unsatisfied', why: '13.0 = 11.6 false' },
  { predicate: 'cuda!=11.6', expect: 'satisfied', why: '13.0 != 11.6' },
  { predicate: 'cuda>=11.6 foo=bar', expect: 'satisfied', why: 'lazy: foo=bar not reached' },
  { predicate: 'cuda>=11.6 arch=5.3', expect: 'satisfied', why: 'space is OR in dsl.c' },
  { predicate: 'cuda>=11.6,arch=5.3', expect: 'unsatisfied', why: 'comma is AND: arch 9.0 = 5.3 false' },
  { predicate: 'cuda<13.6 cuda>=11.6,arch=5.3', expect: 'satisfied', why: '13.0 < 13.6' },
  // Operators: the run of <>=! must be a prefix of =, !=, <, <=, >, >= (in that order).
  { predicate: 'brand!geforce', expect: 'satisfied', why: 'a lone ! matches "!=" by strncmp over 1 char' },
  { predicate: 'brand!nvidia', expect: 'unsatisfied', why: 'brand != nvidia is false' },
  { predicate: 'cuda==13.0', expect: 'invalid', why: '"==" is no operator prefix' },
  { predicate: 'cuda=>12', expect: 'invalid', why: '"=>" is no operator prefix' },
  { predicate: 'cuda<>12', expect: 'invalid', why: '"<>" is no operator prefix' },
  { predicate: 'cuda!==13', expect: 'invalid', why: '"!==" is longer than any operator' },
  { predicate: 'cuda>=', expect: 'invalid', why: 'empty value' },
  { predicate: '>=12', expect: 'invalid', why: 'empty property: strcspn is 0' },
  { predicate: 'cuda', expect: 'invalid', why: 'no operator' },
  { predicate: 'brand>tesla', expect: 'invalid', why: 'dsl_compare_string takes = and != only' },
  { predicate: 'brand<=nvidia', expect: 'invalid', why: 'dsl_compare_string takes = and != only' },
  // Version tokens.
  { predicate: 'cuda>=.', expect: 'invalid', why: 'strtoumax parses no digit (v == ptr)' },
  { predicate: 'cuda>=.13', expect: 'invalid', why: 'strtoumax parses no digit (v == ptr)' },
  { predicate: 'cuda>=13.', expect: 'satisfied', why: 'trailing dots skipped' },
  { predicate: 'cuda>=12..4', expect: 'satisfied', why: 'runs of dots skipped between parts' },
  { predicate: 'cuda>=12.4a', expect: 'invalid', why: 'not digits and dots' },
  { predicate: 'cuda!=13', expect: 'unsatisfied', why: '13.0 equals 13: leftovers of . and 0 ignored' },
  { predicate: 'driver<580.65.06.1', expect: 'satisfied', why: 'longer version is greater' },
  { predicate: 'driver=580.65.6', expect: 'satisfied', why: 'parts compared as numbers: 06 = 6' },
  { predicate: 'cuda>=18446744073709551615', expect: 'invalid', why: 'strtoumax returns UINTMAX_MAX' },
  { predicate: 'cuda>=99999999999999999999999', expect: 'invalid', why: 'strtoumax saturates' },
  { predicate: 'cuda>=18446744073709551614', expect: 'unsatisfied', why: 'below UINTMAX_MAX: a number' },
  {
    predicate: 'cuda>=13.0.99999999999999999999999',
    expect: 'unsatisfied',
    why: 'the long part is never parsed: the host version ends first, leftovers decide'
  },
  // Alternatives made of commas only.
  { predicate: ',', expect: 'satisfied', why: 'comma-only alternative ends the loop with ret still true' },
  {
    predicate: 'cuda>=99 ,',
    expect: 'unsatisfied',
    why: 'comma-only alternative ends the loop with the previous false'
  },
  { predicate: 'cuda>=99 , cuda>=1', expect: 'unsatisfied', why: 'the loop ended before cuda>=1' },
  // The refusal names the predicate's first space token.
  {
    predicate: ' cuda>=99',
    expect: 'unsatisfied',
    why: 'leading space: first token is empty',
    message: 'unsatisfied condition: '
  },
  {
    predicate: 'brand=tesla cuda>=99',
    expect: 'unsatisfied',
    why: 'no CUDA hint unless the first token starts with cuda>=',
    message: 'unsatisfied condition: brand=tesla'
  },
  {
    predicate: 'cuda>=99\tbrand=nvidia',
    expect: 'invalid',
    why: 'only a space separates: the tab is in the value'
  },
  // arch: compute capability MAJOR.MINOR.
  { predicate: 'arch>=9.0', expect: 'satisfied', why: 'check_device_arch' },
  { predicate: 'arch<9.0', expect: 'unsatisfied', why: '9.0 < 9.0 false' },
  { predicate: 'arch>=sm_90', expect: 'invalid', why: 'arch compared as a version' },
  // A false condition must format into EXPR_MAX (128) as "NAME OP VALUE".
  { predicate: `brand=${'x'.repeat(119)}`, expect: 'unsatisfied', why: '"brand = x…" is 127 characters' },
  { predicate: `brand=${'x'.repeat(120)}`, expect: 'invalid', why: '"brand = x…" is 128 characters' },
  { predicate: `brand!=${'x'.repeat(200)}`, expect: 'satisfied', why: 'only a false condition is formatted' }
]

/** With no GPU visible configure.c evaluates with dev NULL: arch and brand hold, whatever they say. */
export const DSL_NO_DEVICE_CASES: readonly { predicate: string; expect: DslExpect }[] = [
  { predicate: 'arch>=sm_90', expect: 'satisfied' },
  { predicate: 'brand>tesla', expect: 'satisfied' },
  { predicate: 'brand=tesla,cuda>=99', expect: 'unsatisfied' },
  { predicate: 'cuda>=13.0,brand=geforce', expect: 'satisfied' }
]
