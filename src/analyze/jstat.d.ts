// jstat ships no type declarations; only the distribution functions we use are typed here.
declare module 'jstat' {
  interface JStat {
    studentt: {
      cdf(x: number, dof: number): number
      inv(p: number, dof: number): number
    }
    normal: {
      cdf(x: number, mean: number, sd: number): number
      inv(p: number, mean: number, sd: number): number
    }
  }
  const jStat: JStat
  export default jStat
}
