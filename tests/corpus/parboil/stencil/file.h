// smemsim test corpus: copied verbatim from github:abduld/Parboil (University of Illinois/NCSA Open Source License, redistribution with notice: parboil/LICENSE),
// benchmarks/stencil/src/cuda/file.h at commit a4c63da28f45699e9a274cbc49af3e067162aa2b. Everything after these three lines is that file, unchanged.
//
/***************************************************************************
 *cr
 *cr            (C) Copyright 2010 The Board of Trustees of the
 *cr                        University of Illinois
 *cr                         All Rights Reserved
 *cr
 ***************************************************************************/

void outputData(char* fName, float *h_A0,int nx,int ny,int nz);
