/** Small primitives: the child environment allow-list, secret masking, paging bounds, array helpers. */
import { appendAll, maxOf, minOf } from '../../src/util/arrays.js'
import { scrubbedEnv } from '../../src/util/child-env.js'
import { PageGuard, PagingError } from '../../src/util/paging.js'
import { clearSecrets, redactSecrets, registerSecret } from '../../src/util/secrets.js'

describe('scrubbedEnv', () => {
  it('keeps the basics and CUDA settings, drops tokens and runner internals', () => {
    const env = scrubbedEnv({
      PATH: '/usr/bin',
      HOME: '/home/r',
      LC_ALL: 'C',
      CUDA_VISIBLE_DEVICES: '0',
      'INPUT_GITHUB-TOKEN': 'ghp_x',
      GITHUB_TOKEN: 'ghp_y',
      ACTIONS_RUNTIME_TOKEN: 'z',
      ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'z',
      NVIDIA_API_TOKEN: 'secret',
      AWS_SECRET_ACCESS_KEY: 'k',
      MY_SECRET: 'v'
    })
    expect(env).toEqual({ PATH: '/usr/bin', HOME: '/home/r', LC_ALL: 'C', CUDA_VISIBLE_DEVICES: '0' })
  })
})

describe('secrets', () => {
  afterEach(() => clearSecrets())
  it('masks each line of a multi-line secret, and the whole', () => {
    const masked: string[] = []
    registerSecret('ghp_first_part\nsecond_part_xyz', p => masked.push(p))
    expect(masked).toEqual(expect.arrayContaining(['ghp_first_part', 'second_part_xyz']))
    expect(redactSecrets('a ghp_first_part b\nsecond_part_xyz c')).toBe('a *** b\n*** c')
  })
})

describe('PageGuard', () => {
  it('stops a next link that points back, and a list past the cap', () => {
    const g = new PageGuard('comments')
    g.visit('https://api/x?page=1&per_page=100')
    g.visit('https://api/x?page=2&per_page=100')
    expect(() => g.visit('https://api/x?per_page=100&page=1')).toThrow(PagingError)
    const c = new PageGuard('comments', 3)
    for (let i = 1; i <= 3; i++) c.visit(`/x?page=${i}`)
    expect(() => c.visit('/x?page=4')).toThrow(/more than 3 pages/)
  })
})

describe('array helpers', () => {
  it('work on 300k elements where spreading overflows the stack', () => {
    const big = Array.from({ length: 300_000 }, (_, i) => i)
    expect(() => Math.max(...big)).toThrow(RangeError)
    expect(maxOf(big)).toBe(299_999)
    expect(minOf(big)).toBe(0)
    expect(appendAll([], big)).toHaveLength(300_000)
  })
})
